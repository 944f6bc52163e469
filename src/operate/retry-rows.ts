// The operator's retry (`gbatch retry`, the dashboard's retry): failed, rejected or cancelled rows, or the
// ids named, become pending again, each sent by the next run as a new attempt. The plan is decided and
// applied under one write lock, so what the operator saw is what is changed.
import { COMMAND_LINE, type Operator } from '../core/operator.js';
import { planRequeue, type RequeueCandidate, type RequeuePlan, type RequeueContext } from '../core/requeue.js';
import type { ItemState } from '../core/states.js';
import type { JobCancel, JournalOperator, JournalRun } from '../journal/index.js';
import { requeueChange } from '../journal/requeue.js';
import { UsageError } from '../job/options.js';

export interface RetryRequest {
  failed: boolean;
  rejected: boolean;
  cancelled: boolean;
  ids: readonly string[];
}

export interface RetryOutcome {
  plan: Extract<RequeuePlan, { ok: true }>;
  /** Rows in none of the job's manifests, sent all the same on the operator's word. */
  adopted: string[];
  /** The job's cancellation, when this retry lifted it. */
  lifted: JobCancel | undefined;
}

/** Throws UsageError (nothing changed) when the plan is refused. The caller holds the runner's standing. */
export async function retryRows(
  journal: JournalRun & JournalOperator,
  request: RetryRequest,
  context: RequeueContext,
  operator: Operator = COMMAND_LINE,
): Promise<RetryOutcome> {
  const { ids } = request;
  const orphaned = new Set(
    [...(await journal.listings(ids)).values()].filter((row) => row.listing === 'orphaned').map((row) => row.id),
  );
  const plan = await journal.decideAndApply(async (reader) => {
    const decided = planRequeue(
      request,
      await namedRows(reader, ids, orphaned),
      await bulkRows(reader, request),
      context,
    );
    const changes = [];
    for (const id of decided.ok ? decided.requeue : []) changes.push(requeueChange((await reader.get(id))!, operator));
    return { changes, result: decided };
  });
  if (!plan.ok) throw new UsageError(plan.refusal);
  // Sent again on the operator's word, also when no manifest of the job lists them any more (src/core/orphans.ts).
  const adopted = await journal.adopt([...plan.requeue, ...(plan.adopt ?? [])]);
  // Cancelled rows sent again would be cancelled again by the next run: the job's cancellation goes with them.
  const lifted = await liftCancel(
    journal,
    request.cancelled || (plan.requeue.length > 0 && (await anyCancelled(journal, ids))),
  );
  return { plan, adopted, lifted };
}

type Reader = Pick<JournalRun, 'get' | 'iterate'> & Pick<JournalOperator, 'abandonedWhileUncertain'>;

async function namedRows(
  journal: Reader,
  ids: readonly string[],
  orphaned: ReadonlySet<string>,
): Promise<Map<string, RequeueCandidate>> {
  const rows = new Map<string, RequeueCandidate>();
  for (const id of ids) {
    const item = await journal.get(id);
    if (item)
      rows.set(id, {
        id,
        state: item.state,
        kind: item.kind,
        abandonedWhileUncertain: false,
        source: `${item.sourceFile}:${item.sourceLine}`,
        orphaned: orphaned.has(id),
      });
  }
  await markAbandoned(journal, [...rows.values()]);
  return rows;
}

async function liftCancel(journal: JournalRun & JournalOperator, wanted: boolean): Promise<JobCancel | undefined> {
  if (!wanted) return undefined;
  const cancel = await journal.jobCancel();
  if (cancel) await journal.setJobCancel(undefined);
  return cancel;
}

/** Whether a named id was cancelled: its event log's last move (the row is pending again now). */
async function anyCancelled(journal: JournalRun & JournalOperator, ids: readonly string[]): Promise<boolean> {
  for (const id of ids) {
    const events = await journal.events(id);
    if (events[events.length - 1]?.from === 'cancelled') return true;
  }
  return false;
}

async function bulkRows(journal: Reader, request: RetryRequest): Promise<RequeueCandidate[]> {
  const states: ItemState[] = [
    ...(request.failed ? ['failed' as const] : []),
    ...(request.rejected ? ['rejected' as const] : []),
    ...(request.cancelled ? ['cancelled' as const] : []),
  ];
  if (states.length === 0) return [];
  const rows: RequeueCandidate[] = [];
  for await (const item of journal.iterate({ states }))
    rows.push({ id: item.id, state: item.state, abandonedWhileUncertain: false });
  await markAbandoned(journal, rows);
  return rows;
}

async function markAbandoned(journal: Reader, rows: RequeueCandidate[]): Promise<void> {
  const abandoned = await journal.abandonedWhileUncertain(rows.filter((r) => r.state === 'failed').map((r) => r.id));
  for (const row of rows) row.abandonedWhileUncertain = abandoned.has(row.id);
}
