// The gateway client: one keep-alive pool to the gateway origin, typed outcomes for submissions
// (never retried here: the runner journals every attempt), bounded retries for reads, downloads
// to disk, and the account-wide pause after a 429. Each part is its own module; this one wires them.

import { systemClock } from '../core/clock.js';
import { DEFAULT_BACKOFF } from '../core/retry.js';
import { FileHasher } from '../io/file-hasher.js';
import { AccountPause } from './account-pause.js';
import type { ClientContext, ClientCounters } from './client-context.js';
import type { GatewayClient, GatewayClientOptions } from './client-types.js';
import { GatewayCaller } from './gateway-call.js';
import { getTask, listModels } from './reads.js';
import { createRedactor } from './redact.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.js';
import { submit } from './submit.js';
import { parseBaseUrl } from './urls.js';
import { downloadVideo } from './video-download.js';

export type {
  ConnectivityListener,
  DownloadOptions,
  GatewayClient,
  GatewayClientOptions,
  SendOptions,
  SendOutcome,
} from './client-types.js';

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const { origin, basePath } = parseBaseUrl(options.baseUrl);
  const clock = options.clock ?? systemClock;
  const pause = new AccountPause(clock);
  const counters: ClientCounters = { requests: 0, retries: 0, rateLimited: 0 };
  // What the requests' caller and the calls made through it both go by.
  const shared = {
    clock,
    random: options.random ?? Math.random,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    redact: createRedactor([options.apiKey]),
    pause,
    counters,
  };
  const caller = new GatewayCaller({
    origin,
    apiKey: options.apiKey,
    ...shared,
    connections: options.connections ?? 64,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    headersTimeoutMs: { POST: options.headersTimeoutMs ?? 300_000, GET: options.headersTimeoutMs ?? 30_000 },
    bodyTimeoutMs: options.bodyTimeoutMs ?? 300_000,
    connectivity: options.connectivity,
    onExchange: options.onExchange,
  });
  const ctx: ClientContext = {
    origin,
    apiUrl: (path) => new URL(`${basePath}${path}`, origin),
    ...shared,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    call: caller.call,
  };
  const hasher = new FileHasher();

  return {
    origin,
    listModels: (signal) => listModels(ctx, signal),
    send: (kind, body, attempt, sendOptions) => submit(ctx, kind, body, attempt, sendOptions),
    getTask: (taskId, signal) => getTask(ctx, taskId, signal),
    download: (taskId, dest, downloadOptions) => downloadVideo(ctx, hasher, taskId, dest, downloadOptions),
    pausedUntil: () => pause.pausedUntil(),
    pauseFor: (ms: number) => pause.pauseFor(ms),
    stats: () => ({ ...counters }),
    async close() {
      await Promise.all([caller.close(), hasher.close()]);
    },
  };
}
