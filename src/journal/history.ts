// Questions an operator's command asks of the journal's event log. The log has no per-item index (it
// would cost every transition of a run a B-tree insert), so each question is one scan, newest first,
// stopping as soon as it is answered.
import { eventHolders, type TaskIdHolder } from '../core/task-attach.js';
import type { Journal } from './sqlite/journal.js';
import { newestFirst } from './sqlite/event-log.js';

/** The time (ms) of each item's last `submit` event, for the given ids (absent when it was never sent). */
export function lastSubmitTimes(journal: Journal, ids: readonly string[]): Map<string, number> {
  const wanted = new Set(ids);
  const found = new Map<string, number>();
  if (wanted.size === 0) return found;
  for (const row of newestFirst(journal.db, { event: 'submit' })) {
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
export function abandonedWhileUncertain(journal: Journal, failedIds: Iterable<string>): Set<string> {
  const pending = new Set(failedIds);
  const abandoned = new Set<string>();
  if (pending.size === 0) return abandoned;
  for (const row of newestFirst(journal.db, { toState: 'failed' })) {
    // A failed row's own notes and released reservation (unreserve) are not how it came to fail.
    if (row.from_state === 'failed') continue;
    if (!pending.delete(row.item_id)) continue;
    if (row.event === 'abandon' && row.from_state === 'uncertain') abandoned.add(row.item_id);
    if (pending.size === 0) break;
  }
  return abandoned;
}

/** The rows holding `taskId` now, then each accept or attach that gave it to a row, in log order (one scan). */
export function taskIdHolders(journal: Journal, taskId: string): TaskIdHolder[] {
  const holders: TaskIdHolder[] = (journal.db.prepare('SELECT id FROM items WHERE task_id = ? ORDER BY seq').all(taskId) as Array<{ id: string }>)
    .map((row) => ({ itemId: row.id, current: true, event: null, attempt: null }));
  const rows = journal.db.prepare(`SELECT item_id, event, detail FROM events WHERE event IN ('accept', 'attach') AND instr(detail, ?) > 0 ORDER BY seq`)
    .all(JSON.stringify(taskId)) as Array<{ item_id: string; event: 'accept' | 'attach'; detail: string }>;
  return [...holders, ...eventHolders(rows, taskId)];
}

