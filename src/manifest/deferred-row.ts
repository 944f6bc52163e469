// Rows a reader hands over unjudged. The scan worker reads and judges a large manifest while the main
// thread inserts; when the main thread has caught up, the worker gives it rows to judge as well
// (reading and the id registry stay in the worker: they depend on the rows before).
import type { PricingTable } from '../core/pricing.js';
import type { CsvHeader } from './csv-header.js';
import type { RecordTexts } from './csv-record-text.js';
import { draftFromCsvRecord } from './csv-row.js';
import { draftFromJsonLine } from './jsonl-line.js';
import type { IdRegistry } from '../core/id-registry.js';
import { checkedId, finishRow, type RowDraft } from './row-assembly.js';
import type { ManifestEntry } from './types.js';

/**
 * A row as read, with the id registry's answer for it: a CSV record's cells and where it lies in the
 * file, or a JSONL line's text as the only cell (and no byte range: the text is the row).
 */
export interface DeferredRow {
  cells: string[];
  line: number;
  /** Byte range of a CSV record in the file, for its text when it is reported. */
  from: number;
  to: number;
  /** The line its id was first seen on, when that was an earlier row; 0 otherwise. */
  firstLine: number;
}

/** The CSV header a row is read under; null for a JSONL line. */
export type RowLayout = CsvHeader | null;

export interface RowDeferral {
  /** Asked before each data row is judged: true hands it to take() instead. */
  wants(): boolean;
  take(file: string, layout: RowLayout, row: DeferredRow): void;
}

/** The registry's answer for a row handed over, kept in the row: the line its id was first seen on, or 0. */
export function registerHandedOver(ids: IdRegistry, draftId: RowDraft['id'], line: number): number {
  const { id } = checkedId({ id: draftId });
  return (id === undefined ? undefined : ids.register(id, line)) ?? 0;
}

/** What the reader would have yielded for the row. */
export function judgeDeferredRow(
  file: string,
  layout: RowLayout,
  row: DeferredRow,
  texts: RecordTexts,
  pricing: PricingTable,
): ManifestEntry {
  const draft =
    layout === null
      ? draftFromJsonLine(row.cells[0]!, row.line)
      : draftFromCsvRecord(layout, row.cells, row.line, () => texts.record(row.from, row.to));
  return finishRow(file, draft, { register: () => (row.firstLine === 0 ? undefined : row.firstLine) }, pricing);
}
