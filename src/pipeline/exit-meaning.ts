// What a run's exit code means and what the operator does next, in one sentence: the last line of
// `gbatch run`, and the `meaning` of its notifications and of the library's result.
import { EXIT_CODE } from '../core/exit-codes.js';
import { printable } from '../core/printable.js';
import type { IngestOutcome } from '../ingest/ingest-manifests.js';
import { conflictProblem } from '../journal/ingest-rules.js';
import { formatRowError } from '../manifest/types.js';
import type { RunResult } from './runner.js';
import type { JournalLossReason } from './run-result.js';

/** A run's result; the library's says null where the runner's says undefined (no early stop). */
export type RunOutcome = Pick<RunResult, 'exitCode' | 'ingest' | 'outputFailure' | 'counts'> & {
  stopReason: RunResult['stopReason'] | null;
};

export function exitMeaning(result: RunOutcome): string {
  switch (result.exitCode) {
    case EXIT_CODE.ok:
      return result.stopReason === 'ingested'
        ? `Ingested: ${result.ingest?.inserted ?? 0} new row(s) in the journal; nothing was sent.`
        : result.counts.cancelled > 0
          ? `Done: the job is cancelled (gbatch cancel); ${result.counts.cancelled} item(s) cancelled, never sent; everything sent before it is finished.`
          : result.ingest?.skippedChanged.length
            ? `Done: every item is finished; ${result.ingest.skippedChanged.length} changed row(s) skipped (--skip-changed), listed at the start.`
            : 'Done: every item is finished.';
    case EXIT_CODE.someFailed:
      return 'Finished, but some items failed or were rejected (see `gbatch status`).';
    case EXIT_CODE.usage:
      return stoppedLine(
        result,
        'journal-lost',
        USAGE_LINES,
        result.ingest && !result.ingest.ok
          ? `Refused: ${refusalLine(result.ingest)}; nothing was sent.`
          : 'Refused: nothing was sent.',
      );
    case EXIT_CODE.budget:
      return result.stopReason === 'balance'
        ? "Stopped: the gateway's balance ran out (402). Top up, then run again: deferred items are sent then."
        : "Stopped by the job's budget: some items are deferred. Run again with a higher --budget (or --no-budget) to send them.";
    case EXIT_CODE.uncertain:
      return 'Some items are uncertain (their submission may have reached the gateway): decide with `gbatch resolve`.';
    case EXIT_CODE.inFlight:
      return stoppedLine(
        result,
        'lock-lost',
        IN_FLIGHT_LINES,
        'Stopped before all work was done; run again to continue.',
      );
    default:
      return `Exit ${result.exitCode}.`;
  }
}

const LOSS_LINES: Record<JournalLossReason, string> = {
  'journal-lost':
    'Stopped: the journal file was deleted or replaced during the run (see above); nothing more was sent.',
  'lock-lost': 'Stopped: this run lost its journal lock; the runner that holds it now carries on.',
};

/** Why a run exiting `usage` stopped (other reasons: its manifests were refused). */
const USAGE_LINES: StopLines = {
  auth: 'Stopped: the gateway refused the API key (401). Rows stay pending; fix GATEWAY_API_KEY and run again.',
};

/** Why a run exiting `inFlight` stopped early (other reasons: the line's default). */
const IN_FLIGHT_LINES: StopLines = {
  'no-wait': 'Submitted; tasks are in flight. Run again later to poll and download.',
  unreachable:
    'Stopped: the gateway is unreachable (see the line above); nothing more was sent. Run again once it is back.',
  deadline: 'Stopped at the deadline; run again to continue.',
  interrupted: 'Interrupted: nothing new was sent after the signal; run again to continue.',
};

type StopLines = Partial<Record<NonNullable<RunOutcome['stopReason']>, string>>;

/**
 * The line of a run that stopped short: losing the journal (or its lock) comes first, then an output that failed,
 * then the stop's own reason, else `otherwise`.
 */
function stoppedLine(result: RunOutcome, loss: JournalLossReason, lines: StopLines, otherwise: string): string {
  if (result.stopReason === loss) return LOSS_LINES[loss];
  if (result.outputFailure) return outputAdvice(result);
  return (result.stopReason && lines[result.stopReason]) ?? otherwise;
}

/**
 * Why the manifests were refused, in one printable line: the first problem (a changed row, or the first invalid row's
 * error).
 */
function refusalLine(ingest: IngestOutcome): string {
  const firstInvalid = ingest.invalid[0]?.errors[0];
  const first = ingest.conflicts[0]
    ? conflictProblem(ingest.conflicts[0])
    : firstInvalid
      ? `${ingest.problems[0] ?? `${ingest.invalidCount} invalid row(s)`}; the first: ${formatRowError(firstInvalid)}`
      : (ingest.problems[0] ?? 'the manifests were refused');
  const more = ingest.problems.length - 1;
  return printable(more > 0 ? `${first} (and ${more} more problem(s) above)` : first);
}

function outputAdvice(result: RunOutcome): string {
  return (
    `Stopped: ${result.outputFailure!.message}. Every answer received is kept in the journal; ` +
    'make room or fix the path, then run again: nothing already answered is sent again.'
  );
}
