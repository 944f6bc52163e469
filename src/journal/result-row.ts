// The columns results.jsonl is rebuilt from, and which rows have a line: shared by both adapters.
import { ITEM_STATES, TERMINAL, type ItemState } from '../core/states.js';

export interface ResultRow {
  seq: number;
  id: string;
  kind: string;
  state: ItemState;
  response: string | null;
  response_status: number | null;
  request_id: string | null;
  last_error: string | null;
  task_id: string | null;
  final_resolution: string | null;
  output_path: string | null;
  sha256: string | null;
  bytes: number | null;
  /** The row's metadata as JSON (never sent); null when it has none. */
  meta: string | null;
}

const FINAL_STATES = [...TERMINAL].map((s) => `'${s}'`).join(', ');
/** An SQL condition true for rows that have a results line (valid in SQLite and PostgreSQL). */
export const HAS_LINE = `(state IN (${FINAL_STATES}) OR (state = 'succeeded' AND kind IN ('chat', 'responses')))`;
/**
 * Which rows a read of result rows returns: `with-line`, those that have a results line (results.jsonl);
 * `every`, each row of the job whatever its state (a batch's output and error files, where a row the run
 * left unfinished has its line too).
 */
export type ResultScope = 'with-line' | 'every';
/** The SQL condition of a scope (valid in SQLite and PostgreSQL). */
export const scopeCondition = (scope: ResultScope): string => (scope === 'every' ? 'TRUE' : HAS_LINE);
/** States in which an item's line is yet to appear; a video that `succeeded` waits for its download too. */
export const OPEN_STATES = ITEM_STATES.filter((s) => !TERMINAL.has(s) && s !== 'succeeded');

/**
 * Rows pulled one by one until about `pageBytes` of bodies are in hand (at least one row): a caller stops the statement
 * early.
 */
export function takePage(rows: IterableIterator<ResultRow>, pageBytes: number): ResultRow[] {
  const page: ResultRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    page.push(row);
    bytes += (row.response?.length ?? 0) + (row.last_error?.length ?? 0);
    if (bytes >= pageBytes) break; // for-of's break calls return(): the statement stops there
  }
  return page;
}
