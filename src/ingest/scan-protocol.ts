// What the scan worker sends the main thread: judged rows, or rows as read for it to judge. Both travel
// as columns (arrays of strings and typed arrays): structured-cloning them costs far less than an
// array of objects with ten keys each.
import type { Estimate } from '../core/estimate.js';
import type { PricingTable } from '../core/pricing.js';
import type { ItemKind } from '../core/states.js';
import type { DeferredRow, RowLayout } from '../manifest/deferred-row.js';
import type { InvalidEntry, ScannedRow, ScanSummary } from './scan-manifests.js';
import { estimateResolution } from './scan-manifests.js';

// A batch lives in the main thread's heap while it is handled: with 2,000 rows a batch, the 1M-row CSV
// ingest peaked ~20 MB higher (BENCHMARKS.md).
export const SCAN_BATCH = 500;
/** The scan worker's own share of the young generation: the main thread's grows too once it judges rows. */
export const SCAN_WORKER_YOUNG_GENERATION_MB = 16;
/** The reader pauses while this many batches wait for the main thread. */
export const MAX_BACKLOG_BATCHES = 8;

export interface CompactRow {
  id: string;
  kind: ItemKind;
  model: string;
  requestJson: string;
  /** The row's metadata as JSON, or null. */
  metaJson: string | null;
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
  metaJsons: Array<string | null>;
  files: string[];
  resolutions: Array<string | null>;
  lines: Float64Array;
  estimates: Float64Array;
  references: Uint8Array;
}

/**
 * When the worker hands rows over unjudged: 'adaptive' whenever the main thread has (nearly)
 * caught up; 'alternate' every other batch (tests: both paths, deterministically); 'never'.
 */
export type DeferralPolicy = 'adaptive' | 'alternate' | 'never';

export interface ScanWorkerData {
  files: readonly string[];
  pricing: PricingTable;
  /** An Int32Array's buffer: batches the main thread has handled. */
  handled: SharedArrayBuffer;
  deferral: DeferralPolicy;
  /** --meta-columns */
  metaColumns: readonly string[];
}

/** Rows for the main thread to judge (deferred-row.ts), all of one file: cells flattened. */
export interface DeferredColumns {
  file: string;
  /** The CSV header's names; null for JSONL lines. */
  header: string[] | null;
  cells: string[];
  widths: Uint32Array;
  lines: Float64Array;
  from: Float64Array;
  to: Float64Array;
  firstLines: Float64Array;
}

export type ScanMessage =
  | { type: 'batch'; valid: RowColumns; invalid: InvalidEntry[] }
  | { type: 'deferred'; rows: DeferredColumns }
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
  return {
    id: row.id,
    kind: row.kind,
    model: row.model,
    requestJson: row.requestJson,
    metaJson: row.metaJson ?? null,
    file: row.file,
    line: row.line,
    ...estimateFields(estimate),
  };
}

/** Collects valid rows into columns, up to `capacity` rows. */
export class ColumnBuilder {
  private ids: string[] = [];
  private kinds: ItemKind[] = [];
  private models: string[] = [];
  private requestJsons: string[] = [];
  private metaJsons: Array<string | null> = [];
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
    this.metaJsons.push(row.metaJson ?? null);
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
      ids: this.ids,
      kinds: this.kinds,
      models: this.models,
      requestJsons: this.requestJsons,
      metaJsons: this.metaJsons,
      files: this.files,
      resolutions: this.resolutions,
      lines: this.lines.slice(0, n),
      estimates: this.estimates.slice(0, n),
      references: this.references.slice(0, n),
    };
    this.ids = [];
    this.kinds = [];
    this.models = [];
    this.requestJsons = [];
    this.metaJsons = [];
    this.files = [];
    this.resolutions = [];
    return columns;
  }
}

export function* rowsOf(columns: RowColumns): Generator<CompactRow> {
  for (let i = 0; i < columns.ids.length; i++) {
    yield {
      id: columns.ids[i]!,
      kind: columns.kinds[i]!,
      model: columns.models[i]!,
      requestJson: columns.requestJsons[i]!,
      metaJson: columns.metaJsons[i] ?? null,
      file: columns.files[i]!,
      line: columns.lines[i]!,
      resolution: columns.resolutions[i] ?? null,
      hasReferenceVideo: columns.references[i] === 1,
      estimateUsd: columns.estimates[i]!,
    };
  }
}

/** Collects deferred rows of one file into columns, up to `capacity` rows. */
export class DeferredBuilder {
  private origin: { file: string; layout: RowLayout } | undefined;
  private cells: string[] = [];
  private readonly widths: Uint32Array;
  private readonly lines: Float64Array;
  private readonly from: Float64Array;
  private readonly to: Float64Array;
  private readonly firstLines: Float64Array;
  private count = 0;

  constructor(capacity: number) {
    this.widths = new Uint32Array(capacity);
    this.lines = new Float64Array(capacity);
    this.from = new Float64Array(capacity);
    this.to = new Float64Array(capacity);
    this.firstLines = new Float64Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** False when the builder holds rows of another file (take() them first). */
  fits(file: string, layout: RowLayout): boolean {
    return this.origin === undefined || (this.origin.file === file && this.origin.layout === layout);
  }

  add(file: string, layout: RowLayout, row: DeferredRow): void {
    this.origin ??= { file, layout };
    const i = this.count++;
    for (const cell of row.cells) this.cells.push(cell);
    this.widths[i] = row.cells.length;
    this.lines[i] = row.line;
    this.from[i] = row.from;
    this.to[i] = row.to;
    this.firstLines[i] = row.firstLine;
  }

  /** The rows so far; the builder starts empty again. */
  take(): DeferredColumns {
    const { origin, count: n } = this;
    if (origin === undefined) throw new Error('no deferred rows to take');
    const columns: DeferredColumns = {
      file: origin.file,
      header: origin.layout === null ? null : [...origin.layout.names],
      cells: this.cells,
      widths: this.widths.slice(0, n),
      lines: this.lines.slice(0, n),
      from: this.from.slice(0, n),
      to: this.to.slice(0, n),
      firstLines: this.firstLines.slice(0, n),
    };
    this.origin = undefined;
    this.cells = [];
    this.count = 0;
    return columns;
  }
}

export function* deferredRowsOf(columns: DeferredColumns): Generator<DeferredRow> {
  let at = 0;
  for (let i = 0; i < columns.lines.length; i++) {
    const width = columns.widths[i]!;
    yield {
      cells: columns.cells.slice(at, at + width),
      line: columns.lines[i]!,
      from: columns.from[i]!,
      to: columns.to[i]!,
      firstLine: columns.firstLines[i]!,
    };
    at += width;
  }
}

/** What a scan hands its caller: each row judged valid, each invalid one, and a pause between batches. */
export interface CompactHandlers {
  valid(row: CompactRow): void;
  invalid(entry: InvalidEntry): void;
  /** After each batch from the worker: the next is asked for once this settles (the writer's back-pressure). */
  drained?(): Promise<void>;
}
