// Rows a reader hands over unjudged. The scan worker reads and judges a large manifest while the main
// thread inserts; when the main thread has nothing to insert, the worker gives it rows to judge as
// well (csv-parse and the id registry stay in the worker: they depend on the rows before).
import type { PricingTable } from '../core/pricing.js';
import type { CsvHeader } from './csv-header.js';
import type { RecordTexts } from './csv-record-text.js';
import { draftFromCsvRecord } from './csv-row.js';
import { judgeRow } from './row-assembly.js';
import type { ManifestEntry } from './types.js';

/** A CSV record as read, with where it lies in the file and the id registry's answer for it. */
export interface DeferredCsvRow {
  cells: string[];
  line: number;
  /** Byte range of the record in the file, for its text when it is reported. */
  from: number;
  to: number;
  /** The line its id was first seen on, when that was an earlier row; 0 otherwise. */
  firstLine: number;
}

export interface RowDeferral {
  /** Asked before each CSV data row is judged: true hands it to take() instead. */
  wants(): boolean;
  take(file: string, header: CsvHeader, row: DeferredCsvRow): void;
}

/** What the reader would have yielded for the row. */
export function judgeDeferredCsvRow(file: string, header: CsvHeader, row: DeferredCsvRow, texts: RecordTexts, pricing: PricingTable): ManifestEntry {
  const draft = draftFromCsvRecord(header, row.cells, row.line, () => texts.record(row.from, row.to));
  return judgeRow(file, draft, () => (row.firstLine === 0 ? undefined : row.firstLine), pricing);
}
