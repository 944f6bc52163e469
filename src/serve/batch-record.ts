// A batch as the catalog keeps it, and as OpenAI's batch object shows it.
import type { CatalogBatch } from '../journal/index.js';
import type { BatchStatus } from './batch-states.js';
import type { BatchUsage } from './batch-usage.js';
import type { LineError } from './validate-input.js';

export interface RequestCounts {
  total: number;
  completed: number;
  failed: number;
}

/** The catalog's record of a batch: OpenAI's fields, times in seconds. */
export interface BatchFields {
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata: Record<string, string> | null;
  errors: { object: 'list'; data: LineError[] } | null;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  output_file_id: string | null;
  error_file_id: string | null;
  request_counts: RequestCounts;
  /** metadata.budget_usd, parsed: what the gateway may bill for this batch. */
  budget_usd: number | null;
  /** The model of its requests (the first's), once validated; absent on batches made before it was kept. */
  model?: string;
  /** `output_expires_after.seconds`: its output and error files expire that long after they are made. */
  output_expires_after_s?: number | null;
  /** The tokens of its answered requests, once it is final (a video batch has none). */
  usage?: BatchUsage;
}

export interface Batch {
  id: string;
  owner: string;
  status: BatchStatus;
  createdAt: number;
  fields: BatchFields;
}

export const batchOf = (row: CatalogBatch): Batch => ({
  id: row.id,
  owner: row.owner,
  status: row.status as BatchStatus,
  createdAt: row.createdAt,
  fields: row.record as unknown as BatchFields,
});

export const rowOf = (batch: Batch): CatalogBatch => ({
  id: batch.id,
  owner: batch.owner,
  status: batch.status,
  createdAt: batch.createdAt,
  record: batch.fields as unknown as Record<string, unknown>,
});

/**
 * OpenAI's batch object; `counts` (live, from the journal) stands in for the stored ones while it runs. A field
 * not set yet (`completed_at`, `output_file_id`, `errors`, ...) is left out: OpenAI's schema types each as a
 * number, string or object, never null. `metadata` is the one its schema lets be null.
 */
export function batchObject(batch: Batch, counts?: RequestCounts): Record<string, unknown> {
  const { budget_usd: _budget, output_expires_after_s: _expiry, metadata, ...fields } = batch.fields;
  const set = Object.entries(fields).filter(([, value]) => value !== null);
  return {
    id: batch.id,
    object: 'batch',
    status: batch.status,
    created_at: batch.createdAt,
    ...Object.fromEntries(set),
    metadata,
    request_counts: counts ?? fields.request_counts,
  };
}

/** `24h`, or any `Nh` / `Nm`: the window in seconds, or undefined when it is none. */
export function windowSeconds(text: unknown, minuteS = 60): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^([1-9]\d{0,5})([hm])$/.exec(text);
  if (!match) return undefined;
  const seconds = Math.ceil(Number(match[1]) * (match[2] === 'h' ? 60 : 1) * minuteS);
  return seconds <= 366 * 86_400 ? seconds : undefined;
}
