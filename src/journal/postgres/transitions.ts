// The journal's writes of item state planned on the rows' heads, inside a transaction the caller opened: the
// rows read, the batch planned by the pure planner (core/plan-changes.ts), and the plan written by
// gbatch_apply_plan (batch-apply.ts), which holds every guard of a write.
import type pg from 'pg';
import type { ItemState } from '../../core/states.js';
import {
  HELD_STATES,
  isIntent,
  planChanges,
  planNote,
  planOnExpected,
  type ChangePlan,
  type NoteChange,
  type RowHead,
} from '../../core/plan-changes.js';
import type { Change, Move } from '../change.js';
import type { JobCancel } from '../store.js';
import { batchable, callApplyPlan, planRows } from './batch-apply.js';

interface EventRow {
  itemId: string;
  event: string;
  from: string;
  to: string;
  detail: string | null;
}

/** Appends events in the order given (their seq follows it). */
export async function logEvents(
  client: pg.ClientBase,
  jobId: number,
  at: number,
  events: readonly EventRow[],
): Promise<void> {
  if (events.length === 0) return;
  await client.query(
    `INSERT INTO events (job_id, item_id, at, event, from_state, to_state, detail)
    SELECT $1, e.item_id, $2, e.event, e.from_state, e.to_state, e.detail
    FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS e(item_id, event, from_state, to_state, detail, n)
    ORDER BY e.n`,
    [
      jobId,
      at,
      events.map((e) => e.itemId),
      events.map((e) => e.event),
      events.map((e) => e.from),
      events.map((e) => e.to),
      events.map((e) => e.detail),
    ],
  );
}

export { HELD_STATES };

/**
 * Who writes: a runner of the job (its rows, and rows nobody holds; a row it moves into a held state
 * becomes its own), or an operator's command (rows nobody holds). `sweeping`: also rows of these gone
 * runners, which a sweep takes over. `anyOwner`: rows whoever holds them (a note, and the results
 * file's writer storing the rows it wrote lines for).
 */
export interface Writer {
  runnerId: string | undefined;
  sweeping?: readonly string[];
  anyOwner?: boolean;
}

/**
 * Applies `changes` in order, as planChanges plans them on the rows' heads (read once), or on the
 * states they expect when every change names one (batchable()). Throws (the
 * caller rolls back) on an unknown item, an illegal transition, a failed `expect`, a row that moved
 * under the compare-and-set or that another runner holds, a reservation the job's budget cannot take,
 * an intent while the job is cancelled, or a runner that lost its standing (BatchLeaseLostError).
 */
export async function applyChanges(
  client: pg.ClientBase,
  jobId: number,
  changes: readonly Change[],
  now: number,
  writer: Writer = { runnerId: undefined },
): Promise<Move[]> {
  const context = { runner: writer.runnerId, now };
  // A batch that names each row's expected state needs no read: the function checks it (batch-apply.ts).
  const plan = batchable(changes)
    ? planOnExpected(changes, context)
    : planChanges(await readHeads(client, jobId, [...new Set(changes.map((c) => c.id))]), changes, context);
  await writePlan(client, jobId, plan, now, writer);
  return plan.rows.map(({ from, to }) => ({ from, to, at: now }));
}

/** Patches fields without a state change, logged as a `note` event from and to the row's state. */
export async function annotateItem(
  client: pg.ClientBase,
  jobId: number,
  note: NoteChange,
  now: number,
  runnerId: string | undefined,
): Promise<void> {
  // The row locked as read: a note waits for a move under way and is never refused as stale.
  const plan = planNote(await readHeads(client, jobId, [note.id], true), note, { runner: runnerId, now });
  await writePlan(client, jobId, plan, now, { runnerId, anyOwner: true });
}

async function readHeads(
  client: pg.ClientBase,
  jobId: number,
  ids: readonly string[],
  lock = false,
): Promise<Map<string, RowHead>> {
  const heads = await client.query<{
    id: string;
    state: string;
    reserved_usd: number;
    actual_usd: number | null;
    carried_usd: number;
  }>(
    `SELECT id, state, reserved_usd, actual_usd, carried_usd FROM items WHERE job_id = $1 AND id = ANY($2)${lock ? ' FOR UPDATE' : ''}`,
    [jobId, ids],
  );
  return new Map(
    heads.rows.map((row) => [
      row.id,
      {
        state: row.state as ItemState,
        reservedUsd: row.reserved_usd,
        actualUsd: row.actual_usd,
        carriedUsd: row.carried_usd,
      },
    ]),
  );
}

/**
 * Writes a plan with gbatch_apply_plan, in as many calls as it takes to name each row once per call: a row
 * changed twice goes in the next call, which finds it as the first left it.
 */
async function writePlan(
  client: pg.ClientBase,
  jobId: number,
  plan: Omit<ChangePlan, 'money'>,
  now: number,
  writer: Writer,
): Promise<void> {
  const may = writer.anyOwner === true ? true : writer.sweeping?.length ? writer.sweeping : undefined;
  const rows = planRows(plan, may);
  let start = 0;
  while (start < rows.length) {
    const named = new Set<string>();
    let end = start;
    for (; end < rows.length && !named.has(rows[end]!.id); end++) named.add(rows[end]!.id);
    const intent = plan.rows
      .slice(start, end)
      .find((row, i) => isIntent(row.change.event) && rows[start + i]!.e === row.change.event);
    await callApplyPlan(client, jobId, writer.runnerId, now, rows.slice(start, end), intent?.change.id, false);
    start = end;
  }
}

/** The job's cancellation (`gbatch cancel`); `share`: read under a share lock of the job's row (inside a write). */
export async function jobCancelOf(
  db: Pick<pg.ClientBase, 'query'>,
  jobId: number,
  share = false,
): Promise<JobCancel | undefined> {
  const { rows } = await db.query<{ cancelled_at: number | null; cancel_reason: string | null }>(
    `SELECT cancelled_at, cancel_reason FROM jobs WHERE id = $1${share ? ' FOR SHARE' : ''}`,
    [jobId],
  );
  const row = rows[0];
  return row?.cancelled_at == null ? undefined : { at: Number(row.cancelled_at), reason: row.cancel_reason ?? '' };
}
