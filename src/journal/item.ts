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

/** Fields a transition may set along with the state. `undefined` leaves a column as it is. */
export type ItemPatch = Partial<
  Pick<
    Item,
    | 'attempts'
    | 'autoResubmits'
    | 'autoRetries'
    | 'downloadFailures'
    | 'taskId'
    | 'estimateUsd'
    | 'reservedUsd'
    | 'priceSnapshot'
    | 'actualUsd'
    | 'totalTokens'
    | 'finalResolution'
    | 'gatewayChargeUsd'
    | 'resultUrl'
    | 'response'
    | 'responseStatus'
    | 'requestId'
    | 'outputPath'
    | 'sha256'
    | 'bytes'
    | 'lastError'
    | 'unmetered'
    | 'carriedUsd'
  >
>;

const PATCH_COLUMNS: Record<keyof ItemPatch, { column: string; json?: boolean; bool?: boolean }> = {
  attempts: { column: 'attempts' },
  autoResubmits: { column: 'auto_resubmits' },
  autoRetries: { column: 'auto_retries' },
  downloadFailures: { column: 'download_failures' },
  taskId: { column: 'task_id' },
  estimateUsd: { column: 'estimate_usd' },
  reservedUsd: { column: 'reserved_usd' },
  priceSnapshot: { column: 'price_snapshot', json: true },
  actualUsd: { column: 'actual_usd' },
  totalTokens: { column: 'total_tokens' },
  finalResolution: { column: 'final_resolution' },
  gatewayChargeUsd: { column: 'gateway_charge_usd' },
  resultUrl: { column: 'result_url' },
  response: { column: 'response', json: true },
  responseStatus: { column: 'response_status' },
  requestId: { column: 'request_id' },
  outputPath: { column: 'output_path' },
  sha256: { column: 'sha256' },
  bytes: { column: 'bytes' },
  lastError: { column: 'last_error', json: true },
  unmetered: { column: 'unmetered', bool: true },
  carriedUsd: { column: 'carried_usd' },
};

export function patchColumns(patch: ItemPatch): { assignments: string[]; values: unknown[] } {
  const assignments: string[] = [];
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const spec = PATCH_COLUMNS[key as keyof ItemPatch];
    if (!spec) throw new Error(`unknown item field '${key}'`);
    assignments.push(`${spec.column} = ?`);
    values.push(spec.json ? (value === null ? null : JSON.stringify(value)) : spec.bool ? (value ? 1 : 0) : value);
  }
  return { assignments, values };
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
