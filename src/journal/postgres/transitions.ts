// The journal's writes of item state, inside a transaction the caller opened: each change checked by the
// pure transition table and written compare-and-set on its from-state, every move logged as an event.
import type pg from 'pg';
import { transition, type ItemEvent, type ItemState } from '../../core/states.js';
import { StaleTransitionError, type Change, type Move } from '../change.js';
import type { ItemPatch } from '../item.js';
import { PATCH_COLUMN_TYPES, patchAssignments, patchFields } from './item-row.js';

interface EventRow { itemId: string; event: string; from: string; to: string; detail: string | null }

/** Appends events in the order given (their seq follows it). */
export async function logEvents(client: pg.ClientBase, jobId: number, at: number, events: readonly EventRow[]): Promise<void> {
  if (events.length === 0) return;
  await client.query(`INSERT INTO events (job_id, item_id, at, event, from_state, to_state, detail)
    SELECT $1, e.item_id, $2, e.event, e.from_state, e.to_state, e.detail
    FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS e(item_id, event, from_state, to_state, detail, n)
    ORDER BY e.n`,
  [jobId, at, events.map((e) => e.itemId), events.map((e) => e.event), events.map((e) => e.from), events.map((e) => e.to), events.map((e) => e.detail)]);
}

interface Planned { change: Change; from: ItemState; to: ItemState; columns: string[]; values: unknown[] }

/**
 * Applies `changes` in order. The rows' states are read once; a row changed twice in one batch is
 * judged on the state the earlier change left it in. Throws (the caller rolls back) on an unknown
 * item, an illegal transition, a failed `expect`, or a row that moved under the compare-and-set.
 */
export async function applyChanges(client: pg.ClientBase, jobId: number, changes: readonly Change[], now: number): Promise<Move[]> {
  const ids = [...new Set(changes.map((c) => c.id))];
  const heads = await client.query<{ id: string; state: string }>('SELECT id, state FROM items WHERE job_id = $1 AND id = ANY($2)', [jobId, ids]);
  const stateOf = new Map(heads.rows.map((row) => [row.id, row.state as ItemState]));
  // Every check the transition table and `expect` make, in order, before anything is written.
  const planned: Planned[] = [];
  for (const change of changes) {
    const from = stateOf.get(change.id);
    if (from === undefined) throw new Error(`unknown item '${change.id}'`);
    if (change.expect !== undefined && from !== change.expect) throw new StaleTransitionError(change.id, change.event, change.expect, from);
    const to = transition(from, change.event);
    stateOf.set(change.id, to);
    planned.push({ change, from, to, ...patchFields(change.patch ?? {}) });
  }
  if (ids.length === changes.length) await updateDistinct(client, jobId, planned, now);
  else for (const step of planned) await updateOne(client, jobId, step, now);
  await logEvents(client, jobId, now, planned.map(({ change, from, to }) =>
    ({ itemId: change.id, event: change.event, from, to, detail: change.detail ? JSON.stringify(change.detail) : null })));
  return planned.map(({ from, to }) => ({ from, to, at: now }));
}

/** One row, compare-and-set on its from-state. */
async function updateOne(client: pg.ClientBase, jobId: number, step: Planned, now: number): Promise<void> {
  const sets = step.columns.map((column, i) => `, ${column} = $${6 + i}`).join('');
  const result = await client.query(`UPDATE items SET state = $1, updated_at = $2${sets} WHERE job_id = $3 AND id = $4 AND state = $5`,
    [step.to, now, jobId, step.change.id, step.from, ...step.values]);
  if (result.rowCount !== 1) throw new StaleTransitionError(step.change.id, step.change.event, step.from);
}

/**
 * Rows that are all different: one UPDATE for each set of patched columns, every row still
 * compare-and-set on its own from-state. A batch of 64 answers costs a round trip or two, not 64.
 */
async function updateDistinct(client: pg.ClientBase, jobId: number, planned: readonly Planned[], now: number): Promise<void> {
  const groups = new Map<string, Planned[]>();
  for (const step of planned) {
    const key = step.columns.join(',');
    const group = groups.get(key);
    if (group) group.push(step);
    else groups.set(key, [step]);
  }
  for (const group of groups.values()) {
    if (group.length === 1) {
      await updateOne(client, jobId, group[0]!, now);
      continue;
    }
    const columns = group[0]!.columns;
    const arrays: unknown[][] = [group.map((s) => s.change.id), group.map((s) => s.from), group.map((s) => s.to)];
    columns.forEach((_, i) => arrays.push(group.map((s) => s.values[i])));
    const types = ['text', 'text', 'text', ...columns.map((column) => PATCH_COLUMN_TYPES[column]!)];
    const names = ['id', 'from_state', 'to_state', ...columns.map((_, i) => `c${i}`)];
    const result = await client.query<{ id: string }>(`UPDATE items i SET state = v.to_state, updated_at = $2${columns.map((column, i) => `, ${column} = v.c${i}`).join('')}
      FROM unnest(${types.map((type, i) => `$${3 + i}::${type}[]`).join(', ')}) AS v(${names.join(', ')})
      WHERE i.job_id = $1 AND i.id = v.id AND i.state = v.from_state
      RETURNING i.id`, [jobId, now, ...arrays]);
    if (result.rowCount !== group.length) {
      const done = new Set(result.rows.map((r) => r.id));
      const stale = group.find((s) => !done.has(s.change.id))!;
      throw new StaleTransitionError(stale.change.id, stale.change.event, stale.from);
    }
  }
}

/** The `store` transition (succeeded -> downloaded) for many rows at once, all or none. */
export async function storeMany(client: pg.ClientBase, jobId: number, ids: readonly string[], outputPath: string, detail: Record<string, unknown>, now: number): Promise<void> {
  const event: ItemEvent = 'store';
  const to = transition('succeeded', event);
  const seen = new Set<string>();
  // A row named twice is stored once; the second `store` finds it downloaded, as SQLite's would.
  for (const id of ids) {
    if (seen.has(id)) throw new StaleTransitionError(id, event, 'succeeded');
    seen.add(id);
  }
  const stored = await client.query<{ id: string }>(`UPDATE items SET state = $1, output_path = $2, updated_at = $3
    WHERE job_id = $4 AND id = ANY($5) AND state = 'succeeded' RETURNING id`, [to, outputPath, now, jobId, ids]);
  if (stored.rowCount !== ids.length) {
    const done = new Set(stored.rows.map((r) => r.id));
    throw new StaleTransitionError(ids.find((id) => !done.has(id))!, event, 'succeeded');
  }
  const detailText = JSON.stringify(detail);
  await logEvents(client, jobId, now, ids.map((id) => ({ itemId: id, event, from: 'succeeded', to, detail: detailText })));
}

/** Patches fields without a state change, logged as a `note` event from and to the row's state. */
export async function annotateItem(client: pg.ClientBase, jobId: number, id: string, patch: ItemPatch, note: string, now: number): Promise<void> {
  const { assignments, values } = patchAssignments(patch, 4);
  const updated = await client.query<{ state: string }>(`UPDATE items SET updated_at = $1, ${assignments.join(', ')}
    WHERE job_id = $2 AND id = $3 RETURNING state`, [now, jobId, id, ...values]);
  const row = updated.rows[0];
  if (!row) throw new Error(`unknown item '${id}'`);
  await logEvents(client, jobId, now, [{ itemId: id, event: note, from: row.state, to: row.state, detail: null }]);
}
