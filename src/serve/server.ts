// `gbatch serve` as a function: opens the catalog, takes up the batches a previous server left live, and
// listens. close() stops taking requests, then stops every run (each resumable) and closes the catalog.
import { join } from 'node:path';
import { requireLoopbackWithoutAuth } from '../job/loopback-only.js';
import type { PricingTable } from '../core/pricing.js';
import { listenOrRelease, type RunningServer } from '../io/http-listener.js';
import { makeDirectoriesSync } from '../io/make-directories.js';
import type { GatewayAccess } from '../job/job.js';
import { openServeCatalog } from '../journal/index.js';
import { serveApp } from './app.js';
import type { ServeContext } from './context.js';
import { openServeFiles } from './file-store.js';
import { BatchScheduler } from './scheduler.js';
import type { ClientTokens } from './tokens.js';

export interface ServeOptions {
  host: string;
  port: number;
  /** A folder, or an s3:// location (then `journal` is required). */
  dataDir: string;
  /** The S3-compatible server of an s3:// dataDir, and its addressing. */
  s3Endpoint?: string | undefined;
  s3PathStyle?: boolean | undefined;
  /** An SQLite file or a postgres:// URL (default: <data>/serve.db). */
  journal: string | undefined;
  pricing: PricingTable;
  pricingFile: string | undefined;
  concurrency: number;
  pollIntervalS: number;
  retryFailed: number | undefined;
  retryBackoffS: number | undefined;
  /** --budget: all batches together. */
  budgetUsd: number | undefined;
  /** --rpm: all batches together. */
  rpm: number | undefined;
  maxFileBytes: number;
  access: GatewayAccess;
  /** Names besides its own address that the server answers to (--allowed-host). */
  allowedHosts: readonly string[];
  /** undefined: no authentication (loopback only). */
  tokens: ClientTokens | undefined;
  env: NodeJS.ProcessEnv;
  log(line: string): void;
  /** Milliseconds since the epoch (default: the system clock): what the server dates and expires by. */
  now?: () => number;
}

export async function startServe(options: ServeOptions): Promise<RunningServer> {
  requireLoopbackWithoutAuth(options.tokens !== undefined, options.host);
  const files = await openServeFiles({
    data: options.dataDir,
    journal: options.journal,
    objectStore: {
      ...(options.s3Endpoint !== undefined ? { endpoint: options.s3Endpoint } : {}),
      ...(options.s3PathStyle ? { pathStyle: true } : {}),
    },
  });
  const dataDir = files.localDir;
  let catalog;
  try {
    makeDirectoriesSync(join(dataDir, 'journals'));
    catalog = await openServeCatalog(options.journal ?? join(dataDir, 'serve.db'));
  } catch (err) {
    await files.close();
    throw err;
  }
  const journal = options.journal ?? join(dataDir, 'serve.db');
  const ctx: ServeContext = {
    catalog,
    files,
    dataDir,
    s3Endpoint: options.s3Endpoint,
    s3PathStyle: options.s3PathStyle,
    journal,
    pricing: options.pricing,
    pricingFile: options.pricingFile,
    concurrency: options.concurrency,
    pollIntervalS: options.pollIntervalS,
    retryFailed: options.retryFailed,
    retryBackoffS: options.retryBackoffS,
    budgetUsd: options.budgetUsd,
    rpm: options.rpm,
    maxFileBytes: options.maxFileBytes,
    access: options.access,
    env: options.env,
    log: options.log,
    now: options.now ?? (() => Date.now()),
  };
  const scheduler = new BatchScheduler(ctx);
  const app = serveApp(ctx, scheduler, options.tokens, {
    listenHost: options.host,
    allowedHosts: options.allowedHosts,
  });
  const listener = await listenOrRelease(app.fetch, options.host, options.port, async () => {
    await catalog.close();
    await files.close();
  });
  await scheduler.resume();
  if (catalog.adapter === 'postgres') scheduler.watch(Math.max(100, options.pollIntervalS * 1000));
  return {
    url: `${listener.origin}/v1`,
    async close() {
      const closed = listener.close();
      await scheduler.close();
      await closed;
      await catalog.close();
      await files.close();
    },
  };
}
