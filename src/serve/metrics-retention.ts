// Pure: how long a final batch's series stay in serve's /metrics. Prometheus keeps what it scraped; the
// endpoint need only show a batch's last figures for a while after it ends, so that the series do not grow
// with every batch the server ever ran.
import type { Batch } from './batch-record.js';

/** A final batch's series are published for this long after it ended, then no more. */
export const FINAL_METRICS_RETENTION_S = 3600;

/** When the batch ended, epoch seconds; undefined while it is live. */
export function batchEndedAt(batch: Batch): number | undefined {
  const f = batch.fields;
  switch (batch.status) {
    case 'completed':
      return f.completed_at ?? undefined;
    case 'failed':
      return f.failed_at ?? undefined;
    case 'expired':
      return f.expired_at ?? undefined;
    case 'cancelled':
      return f.cancelled_at ?? undefined;
    default:
      return undefined;
  }
}

/** Whether the batch's series are published at `nowMs`: live, or ended less than `retentionS` ago. */
export function metricsRetained(batch: Batch, nowMs: number, retentionS = FINAL_METRICS_RETENTION_S): boolean {
  const ended = batchEndedAt(batch);
  return ended === undefined || nowMs < (ended + retentionS) * 1000;
}
