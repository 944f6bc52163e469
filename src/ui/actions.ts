// What a signed-in user may do to a job from the dashboard (with --allow-actions): the CLI's own guarded
// decisions (src/operate), each confirmed on a page first, each recorded in the journal's event log with
// the user's token name. A refusal (a live run holds the rows, a row moved meanwhile) is said in one line.
import type { Operator } from '../core/operator.js';
import { JournalBusyError, JournalWriteBusyError, type JournalOperator, type JournalRun } from '../journal/index.js';
import { UsageError } from '../job/options.js';
import { abandonItem } from '../operate/abandon-item.js';
import { cancelJob } from '../operate/cancel-job.js';
import { resolveEveryUncertain } from '../operate/resolve-uncertain.js';
import { resubmitItem } from '../operate/resubmit-item.js';
import { retryRows, type RetryRequest } from '../operate/retry-rows.js';
import { retryWaits } from './retry-waits.js';

export interface ActionInput {
  /** The row, for a row's action. */
  id?: string | undefined;
  /** The operator's reason (cancel), kept with the job. */
  reason?: string | undefined;
  /** Abandon: the gateway shows the request was not billed, so its reservation is released. */
  notBilled?: boolean | undefined;
}

export interface ActionSpec {
  /** The button's words. */
  title: string;
  /** What happens, told on the confirmation page before anything changes. */
  consequence: string;
  /** Whether it names one row (`?id=`). */
  row: boolean;
  /** It waits for the job's runs to end, as `gbatch retry` does (exit 73 while one holds the journal). */
  waitsForRuns?: true;
  run(
    journal: JournalRun & JournalOperator,
    input: ActionInput,
    operator: Operator,
    journalArg: string,
  ): Promise<string>;
}

const NO_IDS: RetryRequest = { failed: false, rejected: false, cancelled: false, ids: [] };

async function retry(
  journal: JournalRun & JournalOperator,
  request: RetryRequest,
  journalArg: string,
  operator: Operator,
) {
  // As `gbatch retry`: a live run's lanes could not see rows come back, so none may run meanwhile.
  await journal.membership.acquire();
  try {
    const { plan, adopted, lifted } = await retryRows(
      journal,
      request,
      { journalArg, file: journal.location },
      operator,
    );
    const requeued = new Set([...plan.requeue, ...adopted]).size;
    const left = plan.leftOut.length
      ? `; ${plan.leftOut.length} abandoned while uncertain left out (their request may have reached the gateway)`
      : '';
    const cancel = lifted ? "; the job's cancellation is lifted" : '';
    return requeued === 0
      ? `nothing to retry; nothing changed${left}`
      : `${requeued} row(s) pending again: the next \`gbatch run\` sends each as a new attempt${left}${cancel}`;
  } finally {
    await journal.membership.release();
  }
}

function rowId(input: ActionInput): string {
  if (!input.id) throw new UsageError('no row named (?id=)');
  return input.id;
}

export const ACTIONS: Record<string, ActionSpec> = {
  cancel: {
    title: 'Cancel the job',
    consequence:
      'Pending and deferred rows become cancelled and are never sent; every live runner stops submitting. Tasks already submitted are still polled, downloaded and billed (the gateway has no cancel).',
    row: false,
    async run(journal, input, operator) {
      const reason = input.reason || `cancelled from the dashboard by ${operator.who}`;
      const { cancelled } = await cancelJob(journal, reason, operator);
      return `job cancelled: ${cancelled.pending} pending and ${cancelled.deferred} deferred row(s) are now cancelled`;
    },
  },
  'retry-failed': {
    title: 'Retry every failed row',
    consequence:
      'Failed rows become pending; the next run sends each as a new attempt (rows abandoned while uncertain are left out: their request may have reached the gateway).',
    row: false,
    waitsForRuns: true,
    run: (journal, _input, operator, arg) => retry(journal, { ...NO_IDS, failed: true }, arg, operator),
  },
  'retry-rejected': {
    title: 'Retry every rejected row',
    consequence: 'Rejected rows become pending; the next run sends each as a new attempt.',
    row: false,
    waitsForRuns: true,
    run: (journal, _input, operator, arg) => retry(journal, { ...NO_IDS, rejected: true }, arg, operator),
  },
  'retry-cancelled': {
    title: 'Send the cancelled rows again',
    consequence: "Cancelled rows become pending and the job's cancellation is lifted: runs send them again.",
    row: false,
    waitsForRuns: true,
    run: (journal, _input, operator, arg) => retry(journal, { ...NO_IDS, cancelled: true }, arg, operator),
  },
  'retry-row': {
    title: 'Retry this row',
    consequence: 'The row becomes pending; the next run sends it as a new attempt.',
    row: true,
    waitsForRuns: true,
    run: (journal, input, operator, arg) => retry(journal, { ...NO_IDS, ids: [rowId(input)] }, arg, operator),
  },
  'resubmit-uncertain': {
    title: 'Resubmit every uncertain row',
    consequence:
      'Every uncertain row becomes pending and is sent again by the next run. Where a first request reached the gateway, both may be billed: the bound of each first request stays booked against the budget.',
    row: false,
    async run(journal, _input, operator, arg) {
      const ids = await resolveEveryUncertain(journal, 'resubmit', false, arg, operator);
      return `${ids.length} uncertain row(s) will be sent again by the next run`;
    },
  },
  'abandon-uncertain': {
    title: 'Abandon every uncertain row',
    consequence:
      'Every uncertain row becomes failed. Each may have been billed, so its bound stays booked against the budget unless you say the gateway did not bill them.',
    row: false,
    async run(journal, input, operator, arg) {
      const ids = await resolveEveryUncertain(journal, 'abandon', input.notBilled === true, arg, operator);
      return `${ids.length} uncertain row(s) abandoned (now failed)${input.notBilled ? '; their reservations are released' : ''}`;
    },
  },
  'resubmit-row': {
    title: 'Resubmit this row',
    consequence:
      'The row becomes pending and is sent again by the next run. If the first request reached the gateway, both may be billed: its bound stays booked against the budget.',
    row: true,
    async run(journal, input, operator, arg) {
      const id = rowId(input);
      const item = await journal.get(id);
      if (!item) throw new UsageError(`no row '${id}'`);
      return resubmitItem(journal, item, arg, operator);
    },
  },
  'abandon-row': {
    title: 'Abandon this row',
    consequence:
      'The row becomes failed. If it may have been billed, its bound stays booked against the budget unless you say the gateway did not bill it.',
    row: true,
    run: (journal, input, operator, arg) => abandonItem(journal, rowId(input), input.notBilled === true, arg, operator),
  },
};

/** Why `action` may not run now (a retry while a run is live on the job), or undefined. */
export function liveRunRefusal(action: Pick<ActionSpec, 'waitsForRuns'>, liveRunners: number): string | undefined {
  return action.waitsForRuns ? retryWaits(liveRunners) : undefined;
}

/** An action's refusal as the one line the page shows; anything else is not a refusal (rethrown). */
export function refusalOf(err: unknown): string | undefined {
  if (err instanceof UsageError || err instanceof JournalBusyError || err instanceof JournalWriteBusyError)
    return err.message;
  return undefined;
}
