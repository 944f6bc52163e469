// `GET /metrics` on `gbatch ui`: every job the dashboard shows, read from its journal when Prometheus
// scrapes, in the Prometheus text format. Behind the dashboard's tokens or GBATCH_METRICS_TOKENS; open
// only when neither is configured (`--no-auth`, which keeps the dashboard on loopback).
import { Hono } from 'hono';
import { printable } from '../core/printable.js';
import { journalMetrics, type MetricsJob } from '../metrics/journal-metrics.js';
import { METRICS_CHALLENGE, serverMetricsAllowed } from '../metrics/metrics-access.js';
import { dearReadMs } from '../metrics/paced-read.js';
import type { UiContext } from './context.js';

/** A journal's error may quote what it read: the log line keeps only its start. */
const MAX_REASON = 300;

export function metricsApp(ctx: UiContext, metricsTokens: readonly string[], env: NodeJS.ProcessEnv): Hono {
  const readError = (job: string, err: Error): void =>
    ctx.log(`metrics: the journal of ${job} could not be read: ${printable(err.message).slice(0, MAX_REASON)}`);
  // The dashboard keeps each job's read-only queries open: a scrape borrows them, releasing nothing.
  const exporter = journalMetrics(
    {
      async *jobs(): AsyncGenerator<MetricsJob> {
        for (const job of await ctx.directory.list()) {
          try {
            yield { job: job.key, queries: await ctx.directory.queries(job) };
          } catch (err) {
            readError(job.key, err as Error);
          }
        }
      },
    },
    { onReadError: readError, dearReadMs: dearReadMs(env) },
  );
  const isUser = ctx.tokenName && ((token: string): boolean => ctx.tokenName!(token) !== undefined);
  return new Hono().get('/metrics', async (c) => {
    if (!serverMetricsAllowed(c.req.header('authorization'), metricsTokens, isUser))
      return c.text('unauthorized\n', 401, { 'WWW-Authenticate': METRICS_CHALLENGE });
    return c.body(`${await exporter.metrics()}${liveMetrics(ctx)}`, 200, { 'Content-Type': exporter.contentType });
  });
}

/** The dashboard's own live streams: how many are open, and how often their feeds read a journal. */
function liveMetrics(ctx: UiContext): string {
  return `# HELP gbatch_ui_live_streams Live figure streams (job pages) open now.
# TYPE gbatch_ui_live_streams gauge
gbatch_ui_live_streams ${ctx.live.streams}
# HELP gbatch_ui_live_reads_total Reads of a job's figures for its live streams (one per job per refresh interval).
# TYPE gbatch_ui_live_reads_total counter
gbatch_ui_live_reads_total ${ctx.live.reads}
`;
}
