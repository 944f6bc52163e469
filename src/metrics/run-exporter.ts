// What `run --metrics-port` and `run --push-metrics` add to a run: its metrics served while it lives,
// and pushed once it ended. Neither changes the run: a push that fails is one warning line.
import type { EventEmitter } from 'node:events';
import { printable } from '../core/printable.js';
import { openQueries, type JournalQueries, type KindCounts } from '../journal/index.js';
import type { RunEvents } from '../pipeline/index.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { dearReadMs, pacedRead } from './paced-read.js';
import { parseTokens } from './metrics-tokens.js';
import { redactUrl } from './push-url.js';

export const DEFAULT_METRICS_HOST = '127.0.0.1';
/** A Pushgateway's answer is untrusted text: the warning quotes only its start. */
const MAX_REASON = 300;

export interface ExporterSettings {
  job: string;
  port?: number;
  host?: string;
  pushUrl?: string;
  /** Where GBATCH_METRICS_TOKENS is read. */
  env: NodeJS.ProcessEnv;
  /** The job's journal, where the rows by state and kind are read (a read-only handle of the exporter's own). */
  journal?: { location: string; job: string };
}

/** How the run ended, for the push: its exit code (none: it threw), and whether it was the job's last runner. */
export interface RunEnding {
  exitCode: number | undefined;
  lastOfJob: boolean;
}

export interface RunExporter {
  /** After the run: pushes the final figures (with the last-success time on exit 0) and stops serving. */
  finish(ending: RunEnding): Promise<void>;
  close(): Promise<void>;
}

/** Undefined when the run neither serves nor pushes metrics. */
export async function startExporter(
  settings: ExporterSettings,
  events: EventEmitter<RunEvents>,
): Promise<RunExporter | undefined> {
  if (settings.port === undefined && settings.pushUrl === undefined) return undefined;
  // prom-client takes ~30 ms to load: only a run that serves or pushes metrics loads it.
  const [{ RunMetrics }, { pushMetrics }] = await Promise.all([
    import('./run-metrics.js'),
    import('./push-metrics.js'),
  ]);
  const journal = settings.journal && journalRows(settings.journal, dearReadMs(settings.env));
  const metrics = new RunMetrics(Date.now, journal?.read);
  let server: MetricsServer | undefined;
  if (settings.port !== undefined) {
    server = await startMetricsServer({
      host: settings.host ?? DEFAULT_METRICS_HOST,
      port: settings.port,
      tokens: parseTokens(settings.env.GBATCH_METRICS_TOKENS),
      read: async () => ({ text: await metrics.text(), contentType: metrics.registry.contentType }),
    });
    events.emit('log', `metrics: serving ${server.url}`);
  }
  metrics.attach(events);
  const close = async (): Promise<void> => {
    metrics.detach();
    await server?.close();
    server = undefined;
    await journal?.close();
  };
  // One group per job at the Pushgateway: a PUT replaces it whole, so only figures that are the job's final
  // ones may go there: not those of a run that ended before it had any (the job busy, skipped), nor those of
  // a runner that others outlive (the last of them pushes, as it notifies).
  const push = async (url: string, { exitCode, lastOfJob }: RunEnding): Promise<void> => {
    const where = redactUrl(url);
    if (!metrics.hasFigures()) {
      events.emit('log', `metrics not pushed to ${where}: the run ended before it had figures`);
      return;
    }
    if (!lastOfJob) {
      events.emit('log', "metrics push left to the job's last runner: others are still at work on it");
      return;
    }
    if (exitCode === 0) metrics.markSuccess(Date.now());
    journal?.expire(); // the pushed rows are the journal's at the end, not a scrape's
    try {
      await pushMetrics(url, settings.job, metrics.registry);
    } catch (err) {
      const reason = printable((err as Error).message).slice(0, MAX_REASON);
      events.emit('log', `warning: metrics not pushed to ${where}: ${reason} (the run's outcome is unchanged)`);
    }
  };
  return {
    async finish(ending) {
      metrics.detach();
      if (settings.pushUrl !== undefined) await push(settings.pushUrl, ending);
      await close();
    },
    close,
  };
}

/**
 * The job's rows by kind and state, read from a read-only handle opened at the first read (the run creates the
 * journal) and kept until close(); a handle that failed to open is tried again at the next read. Reads are
 * paced (pacedRead): on a large journal a scrape may reuse the last one; expire() makes the next one fresh.
 */
function journalRows(
  where: { location: string; job: string },
  dearMs: number,
): {
  read: () => Promise<KindCounts>;
  expire: () => void;
  close: () => Promise<void>;
} {
  let opened: Promise<JournalQueries> | undefined;
  const open = (): Promise<JournalQueries> => {
    opened ??= openQueries(where.location, { job: where.job }).catch((err: unknown) => {
      opened = undefined;
      throw err;
    });
    return opened;
  };
  const paced = pacedRead(async () => (await open()).countsByKind(), { dearMs });
  return {
    read: () => paced.read(),
    expire: () => paced.expire(),
    close: async () => {
      const handle = opened;
      opened = undefined;
      await handle?.then((q) => q.close()).catch(() => undefined);
    },
  };
}
