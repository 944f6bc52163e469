// The journal's view of one manifest row, and its mapping to and from the `items` table.
import { roundUsd } from '../core/money.js';
import type { ItemKind, ItemState } from '../core/states.js';

export interface ItemError {
  status?: number;
  code?: string;
  type?: string;
  param?: string;
  message: string;
}

export interface Item {
  seq: number;
  id: string;
  kind: ItemKind;
  model: string;
  request: Record<string, unknown>;
  contentHash: string;
  sourceFile: string;
  sourceLine: number;
  state: ItemState;
  attempts: number;
  autoResubmits: number;
  /** Automatic sends of the row under --retry-failed since it was ingested or an operator's `retry` (every run's). */
  autoRetries: number;
  /** Download rounds that failed since the row was last sent or attached (every run's); bounded in all. */
  downloadFailures: number;
  taskId: string | null;
  resolution: string | null;
  hasReferenceVideo: boolean;
  estimateUsd: number;
  /** This attempt's reservation (the row's stored reservation less what it carries). */
  reservedUsd: number;
  /**
   * What earlier attempts of the row keep booked (each may have been billed): part of the job's
   * reservations for good, on top of this attempt's (src/core/plan-changes.ts).
   */
  carriedUsd: number;
  priceSnapshot: unknown;
  actualUsd: number | null;
  totalTokens: number | null;
  finalResolution: string | null;
  gatewayChargeUsd: number | null;
  resultUrl: string | null;
  response: unknown;
  responseStatus: number | null;
  requestId: string | null;
  outputPath: string | null;
  sha256: string | null;
  bytes: number | null;
  lastError: ItemError | null;
  /** Settled without a usable count from the gateway: booked at what was reserved (its bound). */
  unmetered: boolean;
  updatedAt: number;
}

/**
 * Fields a transition may set along with the state, and how each is stored: in the column of its name in
 * snake_case, as it is, as JSON text, or (SQLite has no booleans) as 0 or 1.
 */
const PATCH_FIELDS = {
  attempts: 'value',
  autoResubmits: 'value',
  autoRetries: 'value',
  downloadFailures: 'value',
  taskId: 'value',
  estimateUsd: 'value',
  reservedUsd: 'value',
  priceSnapshot: 'json',
  actualUsd: 'value',
  totalTokens: 'value',
  finalResolution: 'value',
  gatewayChargeUsd: 'value',
  resultUrl: 'value',
  response: 'json',
  responseStatus: 'value',
  requestId: 'value',
  outputPath: 'value',
  sha256: 'value',
  bytes: 'value',
  lastError: 'json',
  unmetered: 'bool',
  carriedUsd: 'value',
} as const satisfies Partial<Record<keyof Item, 'value' | 'json' | 'bool'>>;

/** Fields a transition may set along with the state. `undefined` leaves a column as it is. */
export type ItemPatch = Partial<Pick<Item, keyof typeof PATCH_FIELDS>>;

const PATCH_COLUMNS: ReadonlyMap<string, { column: string; stored: 'value' | 'json' | 'bool' }> = new Map(
  Object.entries(PATCH_FIELDS).map(([field, stored]) => [
    field,
    { column: field.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`), stored },
  ]),
);

export function patchColumns(patch: ItemPatch): { assignments: string[]; values: unknown[] } {
  const assignments: string[] = [];
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const spec = PATCH_COLUMNS.get(key);
    if (!spec) throw new Error(`unknown item field '${key}'`);
    assignments.push(`${spec.column} = ?`);
    values.push(storedValue(spec.stored, value));
  }
  return { assignments, values };
}

function storedValue(stored: 'value' | 'json' | 'bool', value: unknown): unknown {
  if (stored === 'json') return value === null ? null : JSON.stringify(value);
  if (stored === 'bool') return value ? 1 : 0;
  return value;
}

export interface ItemRow {
  seq: number;
  id: string;
  kind: string;
  model: string | null;
  request: string | null;
  content_hash: string;
  source_file: string;
  source_line: number;
  state: string;
  attempts: number;
  auto_resubmits: number;
  /** Absent from a journal an older gbatch wrote and this one opened read-only (not migrated). */
  auto_retries?: number;
  download_failures?: number;
  task_id: string | null;
  resolution: string | null;
  has_reference_video: number;
  estimate_usd: number;
  reserved_usd: number;
  carried_usd: number;
  price_snapshot: string | null;
  actual_usd: number | null;
  total_tokens: number | null;
  final_resolution: string | null;
  gateway_charge_usd: number | null;
  result_url: string | null;
  response: string | null;
  response_status: number | null;
  request_id: string | null;
  output_path: string | null;
  sha256: string | null;
  bytes: number | null;
  last_error: string | null;
  unmetered: number;
  updated_at: number;
}

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export function rowToItem(row: ItemRow): Item {
  return {
    seq: row.seq,
    id: row.id,
    kind: row.kind as ItemKind,
    model: row.model ?? '',
    request: (parse(row.request) as Record<string, unknown> | null) ?? {},
    contentHash: row.content_hash,
    sourceFile: row.source_file,
    sourceLine: row.source_line,
    state: row.state as ItemState,
    attempts: row.attempts,
    autoResubmits: row.auto_resubmits,
    autoRetries: row.auto_retries ?? 0,
    downloadFailures: row.download_failures ?? 0,
    taskId: row.task_id,
    resolution: row.resolution,
    hasReferenceVideo: row.has_reference_video === 1,
    estimateUsd: row.estimate_usd,
    reservedUsd: row.carried_usd ? roundUsd(row.reserved_usd - row.carried_usd) : row.reserved_usd,
    carriedUsd: row.carried_usd ?? 0,
    priceSnapshot: parse(row.price_snapshot),
    actualUsd: row.actual_usd,
    totalTokens: row.total_tokens,
    finalResolution: row.final_resolution,
    gatewayChargeUsd: row.gateway_charge_usd,
    resultUrl: row.result_url,
    response: parse(row.response),
    responseStatus: row.response_status,
    requestId: row.request_id,
    outputPath: row.output_path,
    sha256: row.sha256,
    bytes: row.bytes,
    lastError: parse(row.last_error) as ItemError | null,
    unmetered: row.unmetered === 1,
    updatedAt: row.updated_at,
  };
}
