// `GET /metrics` on `gbatch serve`: the batches' jobs, read from their journals when Prometheus scrapes, in
// the Prometheus text format. A client's token reads its own batches; a token of GBATCH_METRICS_TOKENS reads
// every batch; open only when neither is configured (`--no-auth`, which keeps the server on loopback). A
// final batch's series go once it has ended FINAL_METRICS_RETENTION_S ago.
import { existsSync } from 'node:fs';
import type { Context } from 'hono';
import { printable } from '../core/printable.js';
import { isDatabaseUrl, openJournalReader, openQueries, type JournalQueries } from '../journal/index.js';
import { journalMetrics, type JournalExporter, type MetricsJob } from '../metrics/journal-metrics.js';
import { positiveKnob } from '../core/test-knob.js';
import { METRICS_CHALLENGE, serverMetricsScope } from '../metrics/metrics-access.js';
import { parseTokens } from '../metrics/metrics-tokens.js';
import { serverBudgetMetrics } from '../metrics/server-budget-metrics.js';
import { dearReadMs } from '../metrics/paced-read.js';
import { batchOf } from './batch-record.js';
import { BATCH_STATUSES } from './batch-states.js';
import { jobJournal, type ServeContext } from './context.js';
import { FINAL_METRICS_RETENTION_S, metricsRetained } from './metrics-retention.js';
import { ServerBudgetReader } from './server-budget-read.js';
import type { ClientTokens } from './tokens.js';

/** A journal's error may quote what it read: the log line keeps only its start. */
const MAX_REASON = 300;

export type MetricsHandler = (c: Context) => Promise<Response>;

export function metricsHandler(ctx: ServeContext, tokens: ClientTokens | undefined): MetricsHandler {
  const exporter = batchMetrics(ctx);
  const budget = new ServerBudgetReader(ctx);
  const metricsTokens = parseTokens(ctx.env.GBATCH_METRICS_TOKENS);
  const ownerOf = tokens && ((token: string): string | undefined => tokens.ownerOf(token));
  return async (c) => {
    const scope = serverMetricsScope(c.req.header('authorization'), metricsTokens, ownerOf);
    if (scope === 'refused') return c.text('unauthorized\n', 401, { 'WWW-Authenticate': METRICS_CHALLENGE });
    let text: string;
    if ('owner' in scope) text = await exporter.metrics({ owner: scope.owner });
    else {
      // The server-wide --budget sums every client's batches: only a scrape that reads every batch has it.
      const figures = await budget.read().catch((err: unknown) => {
        ctx.log(
          `metrics: the server's --budget could not be read: ${printable((err as Error).message).slice(0, MAX_REASON)}`,
        );
        return undefined;
      });
      text = (await exporter.metrics()) + (figures ? await serverBudgetMetrics(figures) : '');
    }
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
  const retentionS = positiveKnob(ctx.env, 'GBATCH_SERVE_TEST_METRICS_RETENTION_S', FINAL_METRICS_RETENTION_S);
  const readError = (job: string, err: Error): void =>
    ctx.log(`metrics: batch ${job} could not be read: ${printable(err.message).slice(0, MAX_REASON)}`);
  const opened = async (
    job: string,
    owner: string,
    open: () => Promise<JournalQueries>,
  ): Promise<MetricsJob | undefined> => {
    try {
      const queries = await open();
      return { job, owner, queries, release: () => queries.close() };
    } catch (err) {
      readError(job, err as Error);
      return undefined;
    }
  };
  return journalMetrics(
    {
      async *jobs(): AsyncGenerator<MetricsJob> {
        const now = ctx.now();
        const batches = (await ctx.catalog.batchesIn(BATCH_STATUSES)).filter((row) =>
          metricsRetained(batchOf(row), now, retentionS),
        );
        if (isDatabaseUrl(ctx.journal)) {
          const reader = await openJournalReader(ctx.journal);
          try {
            for (const batch of batches) {
              const job = await opened(batch.id, batch.owner, () =>
                reader.queries({ key: batch.id, location: ctx.journal }),
              );
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
          const job = await opened(batch.id, batch.owner, () => openQueries(location, { job: batch.id }));
          if (job) yield job;
        }
      },
    },
    { onReadError: readError, dearReadMs: dearReadMs(ctx.env) },
  );
}
