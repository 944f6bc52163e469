// `gbatch ui` as a function: checks its configuration, listens, and closes every journal it opened.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIVE_STREAM_CAPS } from '../core/live-stream-caps.js';
import { requireLoopbackWithoutAuth } from '../job/loopback-only.js';
import { listenOrRelease, type RunningServer } from '../io/http-listener.js';
import { UsageError } from '../job/options.js';
import { isDatabaseUrl } from '../journal/index.js';
import { uiApp } from './app.js';
import type { ObjectStoreOptions } from '../io/output-store.js';
import type { UiContext } from './context.js';
import { objectOutputs } from './object-outputs.js';
import { metricsApp } from './metrics-route.js';
import { parseTokens } from '../metrics/metrics-tokens.js';
import { JobDirectory } from './job-directory.js';
import { Flashes } from './flashes.js';
import { liveFiguresOf } from './live-figures.js';
import { LiveFeeds } from './live-feeds.js';
import { Sessions } from './sessions.js';
import { uiTokenNamer, type UiToken } from './ui-tokens.js';

export interface UiOptions {
  host: string;
  port: number;
  /** A postgres:// URL, one SQLite file, or a folder of SQLite files. */
  source: string;
  /** How the operator named the source, for a message: `--journal`, `--state-dir`, `GBATCH_JOURNAL_URL`. */
  sourceFlag: string;
  /** Sign-in tokens; undefined: none (loopback only). */
  tokens: readonly UiToken[] | undefined;
  allowActions: boolean;
  /** Names besides its own address that the server answers to (--allowed-host). */
  allowedHosts: readonly string[];
  refreshMs: number;
  env: NodeJS.ProcessEnv;
  /** --s3-endpoint and --s3-path-style: where rows' s3:// outputs are read from. */
  objectStore?: ObjectStoreOptions;
  log(line: string): void;
}

export async function startUi(options: UiOptions): Promise<RunningServer> {
  requireLoopbackWithoutAuth(options.tokens !== undefined, options.host);
  const onDatabase = isDatabaseUrl(options.source);
  if (!onDatabase && !existsSync(options.source))
    throw new UsageError(
      `${options.sourceFlag} ${options.source}: no such journal or folder (a job's journal is made by its first run)`,
    );
  // A database that cannot be reached is said now, not on the first page.
  const directory = await JobDirectory.open(options.source);
  await directory.list();
  const ctx: UiContext = {
    directory,
    tokenName: options.tokens ? uiTokenNamer(options.tokens) : undefined,
    sessions: new Sessions(() => Date.now()),
    flashes: new Flashes(() => Date.now()),
    anonymousCsrf: randomBytes(24).toString('base64url'),
    allowActions: options.allowActions,
    listenHost: options.host,
    allowedHosts: options.allowedHosts,
    live: new LiveFeeds({
      read: liveFiguresOf(directory),
      intervalMs: options.refreshMs,
      // Aborted when the feed's last stream closes: its timer goes with it.
      wait: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => {}),
      caps: LIVE_STREAM_CAPS,
      log: options.log,
    }),
    outputs: objectOutputs(options.objectStore ?? {}, options.env),
    now: () => Date.now(),
    log: options.log,
  };
  const app = uiApp(ctx, metricsApp(ctx, parseTokens(options.env.GBATCH_METRICS_TOKENS), options.env));
  const listener = await listenOrRelease(app.fetch, options.host, options.port, () => directory.close());
  return {
    url: `${listener.origin}/`,
    async close() {
      ctx.live.close();
      ctx.outputs.close();
      await listener.close();
      await directory.close();
    },
  };
}
