// One streaming pass over the manifests: each row validated, estimated, and handed on; errors collected.
import { billingResolution } from '../core/models.js';
import { estimateRequest, type Estimate } from '../core/estimate.js';
import type { PricingTable } from '../core/pricing.js';
import { readManifest } from '../manifest/read-manifest.js';
import type { RowDeferral } from '../manifest/deferred-row.js';
import type { ManifestEntry, ManifestRow, RowError } from '../manifest/types.js';

export interface ScannedRow {
  row: ManifestRow;
  estimate: Estimate;
}
export interface InvalidEntry {
  file: string;
  line: number;
  id?: string;
  raw: string;
  errors: RowError[];
}

export interface ScanHandlers {
  valid(row: ScannedRow): void;
  invalid(entry: InvalidEntry): void;
  /** Back-pressure: a promise to await before reading on, or undefined to go on at once. */
  pause?(): Promise<void> | undefined;
}

export interface ScanSummary {
  rows: number;
  valid: number;
  invalid: number;
}

/**
 * Rows scanned between two turns of the event loop: an async generator over lines already read resumes on
 * microtasks alone, so without a turn now and then a large manifest holds off every other request of a server
 * (`gbatch serve` checks and loads a batch's input while it answers its clients) for as long as it reads.
 */
const ROWS_PER_TURN = 256;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function scanManifests(
  files: readonly string[],
  pricing: PricingTable,
  handlers: ScanHandlers,
  deferral?: RowDeferral,
  metaColumns: readonly string[] = [],
): Promise<ScanSummary> {
  const summary: ScanSummary = { rows: 0, valid: 0, invalid: 0 };
  for (const file of files) {
    for await (const entry of readManifest(file, { pricing, deferral, metaColumns })) {
      const wait = handlers.pause?.();
      if (wait) await wait;
      scanEntry(entry, pricing, handlers, summary);
      if (summary.rows % ROWS_PER_TURN === 0) await nextTurn();
    }
  }
  return summary;
}

/** One row of the scan: estimated when valid, and counted. */
export function scanEntry(
  entry: ManifestEntry,
  pricing: PricingTable,
  handlers: Omit<ScanHandlers, 'pause'>,
  summary: ScanSummary,
): void {
  summary.rows++;
  if (!entry.ok) {
    summary.invalid++;
    handlers.invalid(entry);
    return;
  }
  let estimate: Estimate;
  try {
    estimate = estimateRequest(entry.row.kind, entry.row.request, pricing);
  } catch (err) {
    summary.invalid++;
    handlers.invalid({
      file: entry.row.file,
      line: entry.row.line,
      id: entry.row.id,
      raw: JSON.stringify(entry.row.request).slice(0, 2048),
      errors: [
        {
          file: entry.row.file,
          line: entry.row.line,
          id: entry.row.id,
          field: 'model',
          reason: (err as Error).message,
        },
      ],
    });
    return;
  }
  summary.valid++;
  handlers.valid({ row: entry.row, estimate });
}

export function estimateResolution(estimate: Estimate): string | null {
  return estimate.kind === 'video' ? billingResolution(estimate.resolution) : null;
}
