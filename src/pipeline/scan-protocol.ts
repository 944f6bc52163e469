// What the scan worker sends the main thread.
import type { ItemKind } from '../core/states.js';
import type { InvalidEntry, ScannedRow, ScanSummary } from './scan-manifests.js';
import { estimateResolution } from './scan-manifests.js';

export const SCAN_BATCH = 2000;
export const MAX_UNACKED_BATCHES = 8;

export interface CompactRow {
  id: string;
  kind: ItemKind;
  model: string;
  requestJson: string;
  contentHash: string;
  file: string;
  line: number;
  resolution: string | null;
  hasReferenceVideo: boolean;
  estimateUsd: number;
}

export type ScanMessage =
  | { type: 'batch'; valid: CompactRow[]; invalid: InvalidEntry[] }
  | { type: 'done'; summary: ScanSummary }
  | { type: 'error'; message: string };

export function compactRow({ row, estimate }: ScannedRow): CompactRow {
  return {
    id: row.id, kind: row.kind, model: row.model, requestJson: row.requestJson, contentHash: row.contentHash,
    file: row.file, line: row.line, resolution: estimateResolution(estimate),
    hasReferenceVideo: estimate.kind === 'video' && estimate.hasReferenceVideo, estimateUsd: estimate.usd,
  };
}
