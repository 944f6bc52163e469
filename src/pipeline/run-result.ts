// What a run ends with: its exit code, its counts and money, and why it stopped (the library's RunResult).
import type { ItemState } from '../core/states.js';
import type { IngestOutcome } from '../ingest/ingest-manifests.js';
import type { RunnerTakeover } from '../journal/index.js';
import type { UnrecordedTask } from './ending/unrecorded.js';
import type { SubmitStopReason } from './lanes/submitter.js';
import type { Recovery } from './recover.js';
import type { OutputFailure } from './stops/output-stop.js';
import type { EarlyStop } from './stops/run-stops.js';

/** The journal stopped being the run's own: deleted or replaced under it, or its lock taken. */
export type JournalLossReason = 'journal-lost' | 'lock-lost';

export interface RunResult {
  exitCode: number;
  counts: Record<ItemState, number>;
  ingest?: IngestOutcome;
  recovery?: Recovery;
  takeover?: RunnerTakeover;
  stopReason: SubmitStopReason | EarlyStop | 'no-wait' | 'ingested' | 'output' | JournalLossReason | undefined;
  /**
   * The journal's file was deleted or replaced, or its lock lost, mid-run: what the operator must know (and task ids it
   * did not take).
   */
  journalLost?: {
    lines: string[];
    savedCopy?: string;
    unrecordedTasks?: UnrecordedTask[];
    unrecordedAnswers?: Array<{ id: string; attempt: number }>;
  };
  /** One line on why the run stopped early (a deadline, a dead gateway, a signal), as logged. */
  stopMessage?: string;
  /** The write that stopped the run (disk full, read-only, no permission), if one did. */
  outputFailure?: OutputFailure;
  spend: { reservedUsd: number; actualUsd: number };
  budgetUsd?: number;
  polls: number;
  downloadFailures: number;
  exhaustedRetries: number;
  /** Rows this run sent again by itself: --retry-failed (once per retry) and --resubmit-uncertain-text mid-run. */
  autoRetried?: { requeued: readonly string[]; resubmitted: readonly string[] };
  /**
   * Intents the journal refused over the job's budget: another runner of the job reserved the headroom first, or the
   * budget was lowered under this run (each row waits or is deferred then).
   */
  budgetRefusals?: number;
  /** Journal transactions the run's lanes committed (group commit: far fewer than transitions). */
  journalCommits: number;
  /** Among runners sharing the job: false while others are still at work (the last to end reports the job's end). */
  lastOfJob?: boolean;
}
