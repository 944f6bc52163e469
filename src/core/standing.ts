// Pure: a job's standing, from its journal's summary: what happened (running, finished, stopped on the budget or
// by the gateway's 402, cancelled, stopped by a signal or the deadline, crashed), what needs a person (uncertain
// rows, failed or rejected rows the policy will not send again, orphans), and the exact commands for each. Every
// surface (status, status --check, the run's last lines, --quiet, the report's headline, the dashboard) renders it.
import { jobCommand, planCommandOf, resumeWords, runCommandOf, type JobAddress } from './job-address.js';
import type { ItemState } from './states.js';
import { EXIT_CODE } from './exit-codes.js';
import type { FinalBatch } from './final-batch.js';

export type StandingKind =
  | 'running'
  | 'not-started'
  | 'finished'
  | 'budget'
  | 'balance'
  | 'cancelled'
  | 'signal'
  | 'deadline'
  | 'crashed'
  | 'stopped';

/** How the last run ended, as the journal's `runs` table keeps it. */
export interface RunRecord {
  /** False while it runs, or when it was killed before it could record its end. */
  ended: boolean;
  exitCode: number | null;
  stopReason: string | null;
  message: string | null;
}

export interface StandingFacts {
  counts: Record<ItemState, number>;
  /** Runners whose heartbeat is fresh. */
  liveRunners: number;
  cancelled: boolean;
  /** The last run; undefined: the job never ran. */
  lastRun: RunRecord | undefined;
  /** Orphaned rows that wait for the operator's word, and those of them `gbatch retry <ids>` has the next run send. */
  orphans: { waiting: number; resendable: readonly string[] };
  /** The uncertain rows' ids, when known (the first few): one row gets commands naming it. */
  uncertainIds?: readonly string[];
  /** Failed and rejected rows the retry policy sends again on its own: not a person's to send. */
  autoRetried?: { failed: number; rejected: number };
  /** The mark of a final `gbatch serve` batch: its journal never changes, so no command that would change it is due. */
  finalBatch?: FinalBatch;
  address: JobAddress;
}

/** One thing that needs a person: what, in one line, and the commands that act on it (none: words only). */
export interface Need {
  what: 'uncertain' | 'failed' | 'rejected' | 'orphaned' | 'deferred' | 'invalid';
  line: string;
  commands: string[];
}

export interface Standing {
  kind: StandingKind;
  /** A short phrase for a list of jobs. */
  label: string;
  /** What happened, in one sentence. */
  sentence: string;
  /** The command that carries the job on (a stopped run's resume), when one is due and can be pasted. */
  resume: string | null;
  needs: Need[];
  /**
   * Why no command may change the job (a final `gbatch serve` batch), with what its client does instead; null for
   * any other job. The needs of such a job carry no command.
   */
  frozen: string | null;
}

const OPEN_STATES: readonly ItemState[] = ['pending', 'submitting', 'submitted', 'running', 'succeeded'];

/** Exit codes of a run that ended with its rows done or waiting for a person: open rows came after it. */
const ENDED_WITH_ROWS: ReadonlySet<number> = new Set([EXIT_CODE.ok, EXIT_CODE.someFailed, EXIT_CODE.uncertain]);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function standingOf(facts: StandingFacts): Standing {
  const happened = whatHappened(facts);
  const final = facts.finalBatch;
  if (final) {
    // A final batch refuses every command that acts on a need: each says what its client does instead.
    const frozen = `${finalBatchState(final)}; ${FINAL_BATCH_INSTEAD}`;
    const needs = needsOf(facts, happened.kind).map(({ what, head }) => ({
      what,
      line: `${head}: ${frozen}`,
      commands: [],
    }));
    return { ...happened, sentence: `${happened.sentence}; ${finalBatchState(final)}.`, resume: null, needs, frozen };
  }
  const needs = needsOf(facts, happened.kind).map(({ what, line, commands }) => ({ what, line, commands }));
  const open = OPEN_STATES.reduce((n, state) => n + facts.counts[state], 0);
  const resumable = happened.kind !== 'running' && happened.kind !== 'finished' && happened.kind !== 'cancelled';
  const wantsRun = resumable && (open > 0 || happened.kind === 'balance');
  const resume = wantsRun ? runCommandOf(facts.address) : null;
  const sentence =
    wantsRun && resume === null ? `${happened.sentence}; ${resumeWords(facts.address)}.` : `${happened.sentence}.`;
  return { ...happened, sentence, resume, needs, frozen: null };
}

const finalBatchState = (mark: FinalBatch) =>
  `the gbatch serve batch ${mark.batch} is ${mark.status} and never changes`;
/** What the client of a final batch does to send its rows again. */
const FINAL_BATCH_INSTEAD = 'to send its rows again, submit a new batch with them';

/** The facts of what happened, without the rows that need a person or how the job is addressed. */
export type HappenedFacts = Pick<StandingFacts, 'counts' | 'liveRunners' | 'cancelled' | 'lastRun'>;

/** What happened alone: its kind, label and sentence (no commands). */
export function whatHappened(f: HappenedFacts): Pick<Standing, 'kind' | 'label' | 'sentence'> {
  const { counts, lastRun } = f;
  const open = OPEN_STATES.reduce((n, state) => n + counts[state], 0);
  if (f.liveRunners > 0) {
    const runners = plural(f.liveRunners, 'runner');
    return {
      kind: 'running',
      label: `running (${runners})`,
      sentence: `Running with ${runners}; ${open} item(s) open`,
    };
  }
  if (Object.values(counts).every((n) => n === 0))
    return { kind: 'not-started', label: 'no items', sentence: 'No items in the journal yet' };
  if (f.cancelled)
    return {
      kind: 'cancelled',
      label: 'cancelled',
      sentence: `Cancelled (gbatch cancel): ${counts.cancelled} item(s) never sent${open > 0 ? `, ${open} sent before it not yet settled` : ''}`,
    };
  if (lastRun === undefined)
    return open > 0
      ? { kind: 'not-started', label: 'not started', sentence: `Not run yet: ${open} item(s) waiting` }
      : finished(f);
  if (!lastRun.ended)
    return {
      kind: 'crashed',
      label: 'crashed (the last run did not record its end)',
      sentence: 'The last run ended without recording how (killed or crashed)',
    };
  const recorded = recordedStop(lastRun, counts, open);
  if (recorded) return recorded;
  if (counts.deferred > 0 || lastRun.exitCode === EXIT_CODE.budget) return budgetStop(counts);
  if (open === 0) return finished(f);
  if (lastRun.stopReason === null && lastRun.exitCode !== null && ENDED_WITH_ROWS.has(lastRun.exitCode))
    return {
      kind: 'stopped',
      label: 'waiting for the next run',
      sentence: `${open} item(s) waiting for the next run (sent again by an operator, or added since)`,
    };
  const why = lastRun.message ?? lastRun.stopReason ?? `exit ${lastRun.exitCode ?? '?'}`;
  return {
    kind: 'stopped',
    label: `stopped (${lastRun.stopReason ?? `exit ${lastRun.exitCode ?? '?'}`})`,
    sentence: `Stopped (${why}); ${open} item(s) open`,
  };
}

type Happened = Pick<Standing, 'kind' | 'label' | 'sentence'>;

/** What the last run's recorded stop reason says happened; undefined: it recorded none that names the kind. */
function recordedStop(lastRun: RunRecord, counts: HappenedFacts['counts'], open: number): Happened | undefined {
  switch (lastRun.stopReason) {
    case 'balance':
      return {
        kind: 'balance',
        label: `stopped by the gateway's 402: ${counts.deferred} deferred`,
        sentence: `Stopped by the gateway's balance (402): ${counts.deferred} item(s) deferred`,
      };
    case 'budget':
      return budgetStop(counts);
    case 'interrupted':
      return {
        kind: 'signal',
        label: 'stopped by a signal',
        sentence: `Stopped by a signal: nothing new was sent after it; ${open} item(s) open`,
      };
    case 'deadline':
      return {
        kind: 'deadline',
        label: 'stopped at the deadline',
        sentence: `Stopped at the deadline; ${open} item(s) open`,
      };
    case 'internal-error':
      return {
        kind: 'crashed',
        label: 'crashed (internal error)',
        sentence: `The last run crashed on an internal error${lastRun.message ? ` (${lastRun.message})` : ''}`,
      };
  }
  return undefined;
}

const budgetStop = (counts: HappenedFacts['counts']): Happened => ({
  kind: 'budget',
  label: `stopped on budget: ${counts.deferred} deferred`,
  sentence: `Stopped on the job's budget: ${counts.deferred} item(s) deferred`,
});

function finished(f: HappenedFacts): Pick<Standing, 'kind' | 'label' | 'sentence'> {
  const { counts } = f;
  const failed = counts.failed + counts.rejected + counts.invalid;
  const done = `${counts.downloaded} downloaded`;
  return failed > 0
    ? {
        kind: 'finished',
        label: `finished, ${failed} failed or rejected`,
        sentence: `Finished: ${done}, ${failed} failed, rejected or invalid`,
      }
    : { kind: 'finished', label: 'finished', sentence: `Finished: ${done}` };
}

/** A need of a job that may change, with its head alone (what needs a person) for one that may not. */
interface NeedParts extends Need {
  head: string;
}

function needsOf(f: StandingFacts, kind: StandingKind): NeedParts[] {
  const { counts, address } = f;
  const needs: NeedParts[] = [];
  if (counts.uncertain > 0) {
    const ids = f.uncertainIds ?? [];
    const one = counts.uncertain === 1 && ids.length === 1 ? { id: ids[0]! } : undefined;
    needs.push({
      what: 'uncertain',
      head: `${counts.uncertain} item(s) uncertain (the gateway may have them)`,
      line: `${counts.uncertain} item(s) uncertain (the gateway may have them): find each in the gateway's dashboard, then send it again or give it up`,
      commands: one
        ? [jobCommand(address, 'resolve', one, '--resubmit'), jobCommand(address, 'resolve', one, '--abandon')]
        : [
            jobCommand(address, 'resolve', '--all-uncertain', '--resubmit'),
            jobCommand(address, 'resolve', '--all-uncertain', '--abandon'),
          ],
    });
  }
  const failed = counts.failed - (f.autoRetried?.failed ?? 0);
  if (failed > 0)
    needs.push({
      what: 'failed',
      head: `${failed} item(s) failed`,
      line: `${failed} item(s) failed and no run sends them again on its own`,
      commands: [jobCommand(address, 'retry', '--failed')],
    });
  const rejected = counts.rejected - (f.autoRetried?.rejected ?? 0);
  if (rejected > 0)
    needs.push({
      what: 'rejected',
      head: `${rejected} item(s) refused by the gateway`,
      line: `${rejected} item(s) refused by the gateway: fix the cause, then send them again`,
      commands: [jobCommand(address, 'retry', '--rejected')],
    });
  if (f.orphans.waiting > 0) {
    const ids = f.orphans.resendable;
    needs.push({
      what: 'orphaned',
      head: `${f.orphans.waiting} orphaned item(s)`,
      line: `${f.orphans.waiting} orphaned item(s) (in none of the job's manifests, or changed there): no run sends them on its own`,
      commands: ids.length > 0 ? [jobCommand(address, 'retry', ...ids.map((id) => ({ id })))] : [],
    });
  }
  if (counts.invalid > 0) {
    // --skip-invalid: the plan lists each invalid row and, as the run that kept them did, goes on (exit 0).
    const plan = planCommandOf(address, '--skip-invalid');
    needs.push({
      what: 'invalid',
      head: `${counts.invalid} manifest row(s) invalid`,
      line: `${counts.invalid} manifest row(s) invalid (never sent): fix them in the manifest, then run again${plan === null ? '' : '; the plan lists each'}`,
      commands: plan === null ? [] : [plan],
    });
  }
  if (counts.deferred > 0 && kind !== 'cancelled') {
    const balance = kind === 'balance';
    needs.push({
      what: 'deferred',
      head: `${counts.deferred} item(s) deferred`,
      line: balance
        ? `${counts.deferred} item(s) deferred by the gateway's balance: top up, then run again`
        : `${counts.deferred} item(s) deferred by the job's budget: run again with a higher --budget (or --no-budget)`,
      commands: [],
    });
  }
  return needs;
}

/**
 * What a run started now comes to, as `status --check`'s ok line says it: the exit code `gbatch run` would give
 * (`wouldExit`), or, for a job no run may change (a final serve batch), that there is no run.
 */
export function runNowWords(standing: Standing, wouldExit: number): string {
  return standing.frozen !== null ? `no run: ${standing.frozen}` : `\`gbatch run\` would exit ${wouldExit} now`;
}

/** The standing as JSON gives it (status --json, report --format json): snake_case, every field. */
export function standingJson(standing: Standing): Record<string, unknown> {
  return {
    kind: standing.kind,
    label: standing.label,
    sentence: standing.sentence,
    resume: standing.resume,
    frozen: standing.frozen,
    needs: standing.needs.map((need) => ({ what: need.what, line: need.line, commands: need.commands })),
  };
}
