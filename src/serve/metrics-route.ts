// `GET /metrics` on `gbatch serve`: every batch's job, read from its journal when Prometheus scrapes, in
// the Prometheus text format. Behind the server's client tokens or GBATCH_METRICS_TOKENS; open only when
// neither is configured (`--no-auth`, which keeps the server on loopback).
import { existsSync } from 'node:fs';
import type { Context } from 'hono';
import { printable } from '../core/printable.js';
import { isDatabaseUrl, openJournalReader, openQueries, type JournalQueries } from '../journal/index.js';
import { journalMetrics, type JournalExporter, type MetricsJob } from '../metrics/journal-metrics.js';
import { METRICS_CHALLENGE, serverMetricsAllowed } from '../metrics/metrics-access.js';
import { parseTokens } from '../metrics/metrics-tokens.js';
import { dearReadMs } from '../metrics/paced-read.js';
import { BATCH_STATUSES } from './batch-record.js';
import { jobJournal, type ServeContext } from './context.js';
import type { ClientTokens } from './tokens.js';

/** A journal's error may quote what it read: the log line keeps only its start. */
const MAX_REASON = 300;

export type MetricsHandler = (c: Context) => Promise<Response>;

export function metricsHandler(ctx: ServeContext, tokens: ClientTokens | undefined): MetricsHandler {
  const exporter = batchMetrics(ctx);
  const metricsTokens = parseTokens(ctx.env.GBATCH_METRICS_TOKENS);
  const isClient = tokens && ((token: string): boolean => tokens.ownerOf(token) !== undefined);
  const allowed = (header: string | undefined): boolean => serverMetricsAllowed(header, metricsTokens, isClient);
  return async (c) => {
    if (!allowed(c.req.header('authorization')))
      return c.text('unauthorized\n', 401, { 'WWW-Authenticate': METRICS_CHALLENGE });
    const text = await exporter.metrics();
    return c.body(text, 200, {
      'Content-Type': exporter.contentType,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  };
}

/**
 * The server's batches as jobs, each read and released before the next: on PostgreSQL every batch's job through
 * one pool opened for the scrape; with SQLite each batch's own journal file, opened for it and closed after.
 */
function batchMetrics(ctx: ServeContext): JournalExporter {
  const readError = (job: string, err: Error): void =>
    ctx.log(`metrics: the journal of ${job} could not be read: ${printable(err.message).slice(0, MAX_REASON)}`);
  const opened = async (job: string, open: () => Promise<JournalQueries>): Promise<MetricsJob | undefined> => {
    try {
      const queries = await open();
      return { job, queries, release: () => queries.close() };
    } catch (err) {
      readError(job, err as Error);
      return undefined;
    }
  };
  return journalMetrics(
    {
      async *jobs(): AsyncGenerator<MetricsJob> {
        const batches = await ctx.catalog.batchesIn(BATCH_STATUSES);
        if (isDatabaseUrl(ctx.journal)) {
          const reader = await openJournalReader(ctx.journal);
          try {
            for (const batch of batches) {
              const job = await opened(batch.id, () => reader.queries({ key: batch.id, location: ctx.journal }));
              if (job) yield job;
            }
          } finally {
            await reader.close();
          }
          return;
        }
        for (const batch of batches) {
          const location = jobJournal(ctx, batch.id);
          // A batch still validating has no journal yet.
          if (!existsSync(location)) continue;
          const job = await opened(batch.id, () => openQueries(location, { job: batch.id }));
          if (job) yield job;
        }
      },
    },
    { onReadError: readError, dearReadMs: dearReadMs(ctx.env) },
  );
}
