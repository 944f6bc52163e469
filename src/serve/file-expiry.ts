// When a file stops being: an upload at the `expires_at` its `expires_after` set, a batch's output, error
// and video files at their batch's end plus `output_expires_after`. From then on the file is gone, as a
// deleted one: not listed, 404, its bytes removed from the disk.
import type { Batch } from './batch-record.js';

/** A batch's files are as old as its end. */
export const batchFilesCreatedAt = (batch: Batch): number =>
  batch.fields.completed_at ?? batch.fields.expired_at ?? batch.fields.cancelled_at ?? batch.createdAt;

/** Unix seconds at which a batch's files expire; undefined: never (no `output_expires_after`). */
export function batchFilesExpireAt(batch: Batch): number | undefined {
  const after = batch.fields.output_expires_after_s;
  return after === undefined || after === null ? undefined : batchFilesCreatedAt(batch) + after;
}

/** Whether a file whose `expires_at` is `expiresAt` (undefined: never) has expired at `nowMs`. */
export const hasExpired = (expiresAt: number | undefined, nowMs: number): boolean =>
  expiresAt !== undefined && expiresAt * 1000 <= nowMs;
