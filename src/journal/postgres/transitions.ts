// The journal's writes of item state, inside a transaction the caller opened: each change checked by the
// pure transition table and written compare-and-set on its from-state, every move logged as an event.
import type pg from 'pg';
import type { ItemState } from '../../core/states.js';
import {
  HELD_STATES,
  overBudget,
  planChanges,
  planNote,
  type ChangePlan,
  type MoneyMove,
  type NoteChange,
  type RowHead,
} from '../../core/plan-changes.js';
import { StaleTransitionError, type Change, type Move } from '../change.js';
import type { JobCancel } from '../store.js';
import { PATCH_COLUMN_TYPES, patchFields } from './item-row.js';

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

interface Planned {
  id: string;
  event: string;
  from: ItemState;
  to: ItemState;
  columns: string[];
  values: unknown[];
}

export { HELD_STATES };
import { BudgetExceededError, JobCancelledError } from '../errors.js';

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
 * Applies `changes` in order, as planChanges plans them on the rows' heads (read once). Throws (the
 * caller rolls back) on an unknown item, an illegal transition, a failed `expect`, a row that moved
 * under the compare-and-set or that another runner holds, or a reservation the job's budget cannot take.
 */
export async function applyChanges(
  client: pg.ClientBase,
  jobId: number,
  changes: readonly Change[],
  now: number,
  writer: Writer = { runnerId: undefined },
): Promise<Move[]> {
  const ids = [...new Set(changes.map((c) => c.id))];
  const plan = planChanges(await readHeads(client, jobId, ids), changes, { runner: writer.runnerId, now });
  await writePlan(client, jobId, plan, now, writer, ids.length === changes.length);
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
  await writePlan(client, jobId, plan, now, { runnerId, anyOwner: true }, true);
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
 * Writes a plan, guarded: each row compare-and-set on its from-state and on whose it is, the events in
 * batch order, the job's totals moved (the budget asked when a reservation rises), an intent refused
 * while the job is cancelled. `distinct`: no row is named twice (the rows go in one UPDATE per column set).
 */
async function writePlan(
  client: pg.ClientBase,
  jobId: number,
  plan: ChangePlan,
  now: number,
  writer: Writer,
  distinct: boolean,
): Promise<void> {
  const planned: Planned[] = plan.rows.map(({ change, from, to, owner, money }, i) => {
    const fields = patchFields({ ...change.patch, ...money });
    if (owner !== undefined) {
      fields.columns.push('owner');
      fields.values.push(owner);
    }
    return { id: change.id, event: plan.events[i]!.event, from, to, ...fields };
  });
  if (distinct) await updateDistinct(client, jobId, planned, now, writer);
  else for (const step of planned) await updateOne(client, jobId, step, now, writer);
  await logEvents(client, jobId, now, plan.events);
  const cancelled = await moveJobMoney(client, jobId, plan.money);
  // A cancellation committed before this transaction's write is seen (the job row's lock orders them):
  // no intent is written after it. Without money moved, one read of the job's row says it.
  if (plan.intentId !== undefined && (cancelled ?? (await jobCancelOf(client, jobId, true)) !== undefined))
    throw new JobCancelledError(plan.intentId);
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

/**
 * The job's totals move with its rows, in the same transaction. A batch that reserves more must leave
 * settled + reserved within the budget: the row lock on the job makes the check and the move one step
 * for every runner, so racing runners can never together pass the budget.
 */
async function moveJobMoney(client: pg.ClientBase, jobId: number, money: MoneyMove): Promise<boolean | undefined> {
  if (money.reservedUsd === 0 && money.actualUsd === 0) return undefined;
  const { rows } = await client.query<{
    reserved_usd: number;
    actual_usd: number;
    budget_usd: number | null;
    cancelled: boolean;
  }>(
    `UPDATE jobs SET reserved_usd = reserved_usd + $2, actual_usd = actual_usd + $3 WHERE id = $1
      RETURNING reserved_usd, actual_usd, budget_usd, cancelled_at IS NOT NULL AS cancelled`,
    [jobId, money.reservedUsd, money.actualUsd],
  );
  const job = rows[0]!;
  if (
    money.reservingId !== undefined &&
    overBudget({ reservedUsd: job.reserved_usd, actualUsd: job.actual_usd }, job.budget_usd)
  ) {
    const held = job.reserved_usd + job.actual_usd;
    throw new BudgetExceededError(
      money.reservingId,
      job.budget_usd!,
      roundMoney(held - money.reservedUsd - money.actualUsd),
      roundMoney(money.reservedUsd),
    );
  }
  return job.cancelled;
}

function roundMoney(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/** Whose rows this writer may change: no one's, its own, and those of the gone runners it sweeps. */
function ownerCondition(writer: Writer, column: string, firstParam: number): { sql: string; values: unknown[] } {
  if (writer.anyOwner === true) return { sql: 'TRUE', values: [] };
  const owners = [...(writer.runnerId ? [writer.runnerId] : []), ...(writer.sweeping ?? [])];
  if (owners.length === 0) return { sql: `${column} IS NULL`, values: [] };
  return { sql: `(${column} IS NULL OR ${column} = ANY($${firstParam}::uuid[]))`, values: [owners] };
}

/** One row, compare-and-set on its from-state (and on whose it is). */
async function updateOne(
  client: pg.ClientBase,
  jobId: number,
  step: Planned,
  now: number,
  writer: Writer,
): Promise<void> {
  const sets = step.columns.map((column, i) => `, ${column} = $${6 + i}`).join('');
  const owned = ownerCondition(writer, 'owner', 6 + step.columns.length);
  const result = await client.query(
    `UPDATE items SET state = $1, updated_at = $2${sets} WHERE job_id = $3 AND id = $4 AND state = $5 AND ${owned.sql}`,
    [step.to, now, jobId, step.id, step.from, ...step.values, ...owned.values],
  );
  if (result.rowCount !== 1) throw new StaleTransitionError(step.id, step.event, step.from);
}

/**
 * Rows that are all different: one UPDATE for each set of patched columns, every row still
 * compare-and-set on its own from-state. A batch of 64 answers costs a round trip or two, not 64.
 */
async function updateDistinct(
  client: pg.ClientBase,
  jobId: number,
  planned: readonly Planned[],
  now: number,
  writer: Writer,
): Promise<void> {
  const groups = new Map<string, Planned[]>();
  for (const step of planned) {
    const key = step.columns.join(',');
    const group = groups.get(key);
    if (group) group.push(step);
    else groups.set(key, [step]);
  }
  for (const group of groups.values()) {
    if (group.length === 1) {
      await updateOne(client, jobId, group[0]!, now, writer);
      continue;
    }
    const columns = group[0]!.columns;
    const arrays: unknown[][] = [group.map((s) => s.id), group.map((s) => s.from), group.map((s) => s.to)];
    columns.forEach((_, i) => arrays.push(group.map((s) => s.values[i])));
    const types = ['text', 'text', 'text', ...columns.map((column) => PATCH_COLUMN_TYPES[column]!)];
    const names = ['id', 'from_state', 'to_state', ...columns.map((_, i) => `c${i}`)];
    const owned = ownerCondition(writer, 'i.owner', 3 + types.length);
    const result = await client.query<{ id: string }>(
      `UPDATE items i SET state = v.to_state, updated_at = $2${columns.map((column, i) => `, ${column} = v.c${i}`).join('')}
      FROM unnest(${types.map((type, i) => `$${3 + i}::${type}[]`).join(', ')}) AS v(${names.join(', ')})
      WHERE i.job_id = $1 AND i.id = v.id AND i.state = v.from_state AND ${owned.sql}
      RETURNING i.id`,
      [jobId, now, ...arrays, ...owned.values],
    );
    if (result.rowCount !== group.length) {
      const done = new Set(result.rows.map((r) => r.id));
      const stale = group.find((s) => !done.has(s.id))!;
      throw new StaleTransitionError(stale.id, stale.event, stale.from);
    }
  }
}
