// What the scan worker sends the main thread. Valid rows travel as columns (arrays of strings and
// typed arrays): structured-cloning them costs far less than an array of objects with ten keys each.
import type { Estimate } from '../core/estimate.js';
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
  file: string;
  line: number;
  resolution: string | null;
  hasReferenceVideo: boolean;
  estimateUsd: number;
}

export interface RowColumns {
  ids: string[];
  kinds: ItemKind[];
  models: string[];
  requestJsons: string[];
  files: string[];
  resolutions: Array<string | null>;
  lines: Float64Array;
  estimates: Float64Array;
  references: Uint8Array;
}

export type ScanMessage =
  | { type: 'batch'; valid: RowColumns; invalid: InvalidEntry[] }
  | { type: 'done'; summary: ScanSummary }
  | { type: 'error'; message: string };

/** What the journal keeps from a row's estimate. */
function estimateFields(estimate: Estimate): Pick<CompactRow, 'resolution' | 'hasReferenceVideo' | 'estimateUsd'> {
  return {
    resolution: estimateResolution(estimate),
    hasReferenceVideo: estimate.kind === 'video' && estimate.hasReferenceVideo,
    estimateUsd: estimate.usd,
  };
}

export function compactRow({ row, estimate }: ScannedRow): CompactRow {
  return { id: row.id, kind: row.kind, model: row.model, requestJson: row.requestJson, file: row.file, line: row.line, ...estimateFields(estimate) };
}

/** Collects valid rows into columns, up to `capacity` rows. */
export class ColumnBuilder {
  private ids: string[] = [];
  private kinds: ItemKind[] = [];
  private models: string[] = [];
  private requestJsons: string[] = [];
  private files: string[] = [];
  private resolutions: Array<string | null> = [];
  private lines: Float64Array;
  private estimates: Float64Array;
  private references: Uint8Array;

  constructor(private readonly capacity: number) {
    this.lines = new Float64Array(capacity);
    this.estimates = new Float64Array(capacity);
    this.references = new Uint8Array(capacity);
  }

  get size(): number {
    return this.ids.length;
  }

  add({ row, estimate }: ScannedRow): void {
    const i = this.ids.length;
    this.ids.push(row.id);
    this.kinds.push(row.kind);
    this.models.push(row.model);
    this.requestJsons.push(row.requestJson);
    this.files.push(row.file);
    const derived = estimateFields(estimate);
    this.resolutions.push(derived.resolution);
    this.lines[i] = row.line;
    this.estimates[i] = derived.estimateUsd;
    this.references[i] = derived.hasReferenceVideo ? 1 : 0;
  }

  /** The columns so far (trimmed to the rows added); the builder starts empty again. */
  take(): RowColumns {
    const n = this.ids.length;
    const columns: RowColumns = {
      ids: this.ids, kinds: this.kinds, models: this.models, requestJsons: this.requestJsons, files: this.files,
      resolutions: this.resolutions,
      lines: this.lines.slice(0, n), estimates: this.estimates.slice(0, n), references: this.references.slice(0, n),
    };
    this.ids = [];
    this.kinds = [];
    this.models = [];
    this.requestJsons = [];
    this.files = [];
    this.resolutions = [];
    return columns;
  }
}

export function* rowsOf(columns: RowColumns): Generator<CompactRow> {
  for (let i = 0; i < columns.ids.length; i++) {
    yield {
      id: columns.ids[i]!, kind: columns.kinds[i]!, model: columns.models[i]!, requestJson: columns.requestJsons[i]!,
      file: columns.files[i]!, line: columns.lines[i]!, resolution: columns.resolutions[i] ?? null,
      hasReferenceVideo: columns.references[i] === 1, estimateUsd: columns.estimates[i]!,
    };
  }
}
