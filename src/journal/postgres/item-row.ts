// Item rows as PostgreSQL returns them: the same columns and JS types as SQLite's (bigint and smallint
// are parsed to numbers by the pool), so the shared mapping applies unchanged.
import { patchColumns, rowToItem, type Item, type ItemPatch, type ItemRow } from '../item.js';

/** Every column of ItemRow, without the PostgreSQL-only ones (job_id, owner). */
export const ITEM_COLUMNS = `seq, id, kind, model, request, content_hash, source_file, source_line, state, attempts,
  auto_resubmits, task_id, resolution, has_reference_video, estimate_usd, reserved_usd, carried_usd, price_snapshot, actual_usd,
  total_tokens, final_resolution, gateway_charge_usd, result_url, response, response_status, request_id, output_path,
  sha256, bytes, last_error, unmetered, updated_at, auto_retries, download_failures`;

export function toItem(row: ItemRow): Item {
  return rowToItem(row);
}

/** The patch as `column = $n` assignments numbered from `firstParam`, with their values. */
export function patchAssignments(patch: ItemPatch, firstParam: number): { assignments: string[]; values: unknown[] } {
  const { assignments, values } = patchColumns(patch);
  return { assignments: assignments.map((a, i) => a.replace('?', `$${firstParam + i}`)), values };
}

/** The PostgreSQL type of each column a patch may set (to cast the arrays a bulk update reads). */
export const PATCH_COLUMN_TYPES: Readonly<Record<string, string>> = {
  attempts: 'integer',
  auto_resubmits: 'integer',
  auto_retries: 'integer',
  download_failures: 'integer',
  task_id: 'text',
  estimate_usd: 'double precision',
  reserved_usd: 'double precision',
  carried_usd: 'double precision',
  price_snapshot: 'text',
  actual_usd: 'double precision',
  total_tokens: 'bigint',
  final_resolution: 'text',
  gateway_charge_usd: 'double precision',
  result_url: 'text',
  response: 'text',
  response_status: 'integer',
  request_id: 'text',
  output_path: 'text',
  sha256: 'text',
  bytes: 'bigint',
  last_error: 'text',
  unmetered: 'smallint',
  owner: 'uuid',
};

/** The patch as column names and their values (JSON serialised, booleans as 0/1), in one order. */
export function patchFields(patch: ItemPatch): { columns: string[]; values: unknown[] } {
  const { assignments, values } = patchColumns(patch);
  return { columns: assignments.map((a) => a.slice(0, a.indexOf(' = '))), values };
}
