// Questions an operator's command asks of the journal's event log. The log has no per-item index (it
// would cost every transition of a run a B-tree insert), so each question is one scan, newest first,
// stopping as soon as it is answered.
import type Database from 'better-sqlite3';
import { currentHolders, eventHolders, type TaskIdHolder } from '../../core/task-attach.js';
import { newestFirst } from './event-log.js';
import { hasWideValues } from './wide-values.js';

/** The time (ms) of each item's last `submit` event, for the given ids (absent when it was never sent). */
export function lastSubmitTimes(db: Database.Database, ids: readonly string[]): Map<string, number> {
  const wanted = new Set(ids);
  const found = new Map<string, number>();
  if (wanted.size === 0) return found;
  for (const row of newestFirst(db, { event: 'submit' })) {
    if (!wanted.has(row.item_id) || found.has(row.item_id)) continue;
    found.set(row.item_id, row.at);
    if (found.size === wanted.size) break; // ends the statement: the rest of the log is not read
  }
  return found;
}

/**
 * The ids among `failedIds` whose last move into `failed` was an operator's `abandon` of an `uncertain`
 * row: their request may have reached the gateway.
 */
export function abandonedWhileUncertain(db: Database.Database, failedIds: Iterable<string>): Set<string> {
  const pending = new Set(failedIds);
  const abandoned = new Set<string>();
  if (pending.size === 0) return abandoned;
  for (const row of newestFirst(db, { toState: 'failed' })) {
    // A failed row's own notes and released reservation (unreserve) are not how it came to fail.
    if (row.from_state === 'failed') continue;
    if (!pending.delete(row.item_id)) continue;
    if (row.event === 'abandon' && row.from_state === 'uncertain') abandoned.add(row.item_id);
    if (pending.size === 0) break;
  }
  return abandoned;
}

/**
 * The rows holding `taskId` now (as their task id, or as the other id their submission's answer named),
 * then each accept or attach that gave it to a row, in log order (one scan of each).
 */
export function taskIdHolders(db: Database.Database, taskId: string): TaskIdHolder[] {
  const response = hasWideValues(db)
    ? 'COALESCE((SELECT a.response FROM item_answers a WHERE a.seq = items.seq), items.response)'
    : 'items.response';
  const current = db
    .prepare(
      `SELECT id AS item_id, task_id, response FROM (SELECT id, seq, task_id, kind, ${response} AS response FROM items)
      WHERE task_id = ? OR (kind = 'video' AND instr(response, ?) > 0) ORDER BY seq`,
    )
    .all(taskId, JSON.stringify(taskId)) as Array<{ item_id: string; task_id: string | null; response: string | null }>;
  const rows = db
    .prepare(
      `SELECT item_id, event, detail FROM events WHERE event IN ('accept', 'attach') AND instr(detail, ?) > 0 ORDER BY seq`,
    )
    .all(JSON.stringify(taskId)) as Array<{ item_id: string; event: 'accept' | 'attach'; detail: string }>;
  return [...currentHolders(current, taskId), ...eventHolders(rows, taskId)];
}
