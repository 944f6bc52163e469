// What the client's parts share: the gateway's address, the clock and backoff, the redactor, the
// account pause, the counters, and the one way a request leaves (GatewayCaller.call).

import type { Clock } from '../core/clock.js';
import type { BackoffPolicy } from '../core/retry.js';
import type { AccountPause } from './account-pause.js';
import type { Call } from './gateway-call.js';
import type { Redactor } from './redact.js';

export interface ClientCounters {
  requests: number;
  retries: number;
  rateLimited: number;
}

export interface ClientContext {
  readonly origin: string;
  /** A path under the base URL's /v1 (or whatever base path it has). */
  apiUrl(path: string): URL;
  readonly clock: Clock;
  readonly random: () => number;
  readonly backoff: BackoffPolicy;
  readonly redact: Redactor;
  readonly pause: AccountPause;
  readonly counters: ClientCounters;
  readonly maxResponseBytes: number;
  readonly call: Call;
}
