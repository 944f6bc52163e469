// One request leaving the client: it waits out the account pause, goes to the gateway's keep-alive pool
// (or, for a result_url host, a separate agent without the key), tells the connectivity listener, and a
// 429 from the gateway pauses the whole account.

import { Agent, Pool, type Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { retryDelay, type BackoffPolicy } from '../core/retry.js';
import type { AccountPause } from './account-pause.js';
import type { ConnectivityListener, GatewayExchange, SendOptions } from './client-types.js';
import { GatewayTransportError } from './errors.js';
import { exchange, headerValue, trackRequestStart, type Exchange } from './http.js';
import type { Redactor } from './redact.js';
import { requestHeaders } from './request-headers.js';

export interface CallRequest extends SendOptions {
  body?: string;
  attempt: number;
  accept: string;
}

export type Call = (method: 'GET' | 'POST', url: URL, request: CallRequest) => Promise<Exchange>;

export interface CallerSettings {
  origin: string;
  apiKey: string;
  clock: Clock;
  random: () => number;
  backoff: BackoffPolicy;
  redact: Redactor;
  pause: AccountPause;
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: { POST: number; GET: number };
  bodyTimeoutMs: number;
  connectivity: ConnectivityListener | undefined;
  /** Counted once per request that leaves the pause, and per 429 from the gateway. */
  counters: { requests: number; rateLimited: number };
  onExchange: ((exchange: GatewayExchange) => void) | undefined;
}

export function abortedBeforeSending(what: string, cause?: unknown): GatewayTransportError {
  return new GatewayTransportError('GBATCH_ABORTED', false, `${what} aborted before it was sent`, { cause });
}

export class GatewayCaller {
  private readonly pool: Pool;
  private readonly gateway: Dispatcher;
  private foreignAgent: Agent | undefined;
  private foreign: Dispatcher | undefined;

  constructor(private readonly settings: CallerSettings) {
    this.pool = new Pool(settings.origin, {
      connections: settings.connections,
      connectTimeout: settings.connectTimeoutMs,
    });
    this.gateway = this.pool.compose(trackRequestStart);
  }

  /** One request: waits out any account pause first; a 429 from the gateway pauses the account. */
  readonly call: Call = async (method, url, request) => {
    const { origin, pause, connectivity, counters } = this.settings;
    const { body, attempt, signal, unsent, onWire } = request;
    const what = `${method} ${url.pathname}`;
    try {
      // A request held by the account pause must not leave once the run stopped sending (the deadline).
      const waitSignal =
        unsent && signal && pause.pausedUntil() > 0 ? AbortSignal.any([signal, unsent]) : (signal ?? unsent);
      await pause.waitUntilOpen(waitSignal);
    } catch (err) {
      throw abortedBeforeSending(what, err);
    }
    if (signal?.aborted) throw abortedBeforeSending(what, signal.reason);
    if (unsent?.aborted) throw abortedBeforeSending(what, unsent.reason);
    const ownOrigin = url.origin === origin;
    const headers = requestHeaders({
      ownOrigin,
      apiKey: this.settings.apiKey,
      accept: request.accept,
      json: body !== undefined,
    });
    counters.requests++;
    let response: Exchange;
    try {
      response = await exchange(
        ownOrigin ? this.gateway : this.foreignDispatcher(),
        {
          method,
          url,
          headers,
          headersTimeoutMs: this.settings.headersTimeoutMs[method],
          bodyTimeoutMs: this.settings.bodyTimeoutMs,
          ...(body !== undefined ? { body } : {}),
          ...(signal ? { signal } : {}),
          ...(unsent ? { unsent } : {}),
          ...(onWire ? { onWire } : {}),
        },
        this.settings.redact,
      );
    } catch (err) {
      if (ownOrigin && err instanceof GatewayTransportError && err.code === 'GBATCH_CONNECT')
        connectivity?.refused(err);
      this.settings.onExchange?.({ lane: laneOf(method, url, ownOrigin), status: null });
      throw err;
    }
    this.settings.onExchange?.({ lane: laneOf(method, url, ownOrigin), status: response.status });
    if (ownOrigin) connectivity?.answered();
    if (response.status === 429 && ownOrigin) {
      counters.rateLimited++;
      this.pauseAfter429(response, attempt);
    }
    return response;
  };

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.foreignAgent?.close()]);
  }

  private pauseAfter429(response: Exchange, attempt: number): void {
    const { clock, backoff, random, pause } = this.settings;
    const retryAfter = headerValue(response.headers, 'retry-after');
    pause.pauseFor(
      retryDelay(
        { status: 429, bodyText: '', ...(retryAfter ? { retryAfter } : {}) },
        attempt,
        backoff,
        clock.now(),
        random,
      ),
    );
  }

  /** result_url hosts other than the gateway: a separate agent, never the gateway's pool or key. */
  private foreignDispatcher(): Dispatcher {
    if (!this.foreignAgent) {
      this.foreignAgent = new Agent({ connectTimeout: this.settings.connectTimeoutMs });
      this.foreign = this.foreignAgent.compose(trackRequestStart);
    }
    return this.foreign!;
  }
}

/** Which lane a request belongs to, from its method and path: submissions POST, polls and downloads GET. */
function laneOf(method: 'GET' | 'POST', url: URL, ownOrigin: boolean): GatewayExchange['lane'] {
  if (method === 'POST') return 'submit';
  if (!ownOrigin || url.pathname.endsWith('/content')) return 'download';
  return url.pathname.endsWith('/models') ? 'other' : 'poll';
}
