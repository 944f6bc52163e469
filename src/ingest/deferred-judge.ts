// The main thread's share of judging a large manifest: the rows the scan worker handed over unjudged
// (deferred-row.ts), judged, estimated and counted here exactly as the reader would have.
import type { PricingTable } from '../core/pricing.js';
import { readCsvHeader, type CsvHeader } from '../manifest/csv-header.js';
import { RecordTexts } from '../manifest/csv-record-text.js';
import { judgeDeferredRow, type RowLayout } from '../manifest/deferred-row.js';
import { scanEntry, type ScanHandlers, type ScanSummary } from './scan-manifests.js';
import { compactRow, deferredRowsOf, type CompactHandlers, type DeferredColumns } from './scan-protocol.js';

export class DeferredJudge {
  readonly summary: ScanSummary = { rows: 0, valid: 0, invalid: 0 };
  private readonly texts = new Map<string, RecordTexts>();
  private readonly layouts = new Map<string, CsvHeader>();
  private readonly handlers: Omit<ScanHandlers, 'pause'>;

  constructor(
    private readonly pricing: PricingTable,
    handlers: CompactHandlers,
    private readonly metaColumns: readonly string[] = [],
  ) {
    this.handlers = { valid: (row) => handlers.valid(compactRow(row)), invalid: handlers.invalid };
  }

  judge(rows: DeferredColumns): void {
    const layout = this.layout(rows);
    let texts = this.texts.get(rows.file);
    if (!texts) this.texts.set(rows.file, (texts = new RecordTexts(rows.file)));
    for (const row of deferredRowsOf(rows)) {
      scanEntry(
        judgeDeferredRow(rows.file, layout, row, texts, this.pricing),
        this.pricing,
        this.handlers,
        this.summary,
      );
    }
  }

  close(): void {
    for (const texts of this.texts.values()) texts.close();
  }

  private layout(rows: DeferredColumns): RowLayout {
    if (rows.header === null) return null;
    let header = this.layouts.get(rows.file);
    if (!header) {
      const read = readCsvHeader(rows.header, this.metaColumns);
      if (!read.header)
        throw new Error(`${rows.file}: the scan worker sent rows under a header it should have refused`);
      this.layouts.set(rows.file, (header = read.header));
    }
    return header;
  }
}
