// Item rows as PostgreSQL returns them: the same columns and JS types as SQLite's (bigint and smallint
// are parsed to numbers by the pool), so the shared mapping applies unchanged.
import { patchColumns, rowToItem, type Item, type ItemPatch, type ItemRow } from '../item.js';

/** Every column of ItemRow, without the PostgreSQL-only ones (job_id, owner). */
export const ITEM_COLUMNS = `seq, id, kind, model, request, content_hash, source_file, source_line, state, attempts,
  auto_resubmits, task_id, resolution, has_reference_video, estimate_usd, reserved_usd, price_snapshot, actual_usd,
  total_tokens, final_resolution, gateway_charge_usd, result_url, response, response_status, request_id, output_path,
  sha256, bytes, last_error, unmetered, updated_at`;

export function toItem(row: ItemRow): Item {
  return rowToItem(row);
}

/** The patch as `column = $n` assignments numbered from `firstParam`, with their values. */
export function patchAssignments(patch: ItemPatch, firstParam: number): { assignments: string[]; values: unknown[] } {
  const { assignments, values } = patchColumns(patch);
  return { assignments: assignments.map((a, i) => a.replace('?', `$${firstParam + i}`)), values };
}
