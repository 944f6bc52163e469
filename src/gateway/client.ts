// The gateway client: one keep-alive pool to the gateway origin, typed outcomes for submissions
// (never retried here: the runner journals every attempt), bounded retries for reads, downloads
// to disk, and the account-wide pause after a 429.

import { Agent, Pool, type Dispatcher } from 'undici';
import { systemClock, type Clock } from '../core/clock.js';
import {
  DEFAULT_BACKOFF,
  decideSubmission,
  extractTaskId,
  parseRetryAfter,
  retryDelay,
  type Answer,
  type BackoffPolicy,
  type SubmitKind,
} from '../core/retry.js';
import { FileHasher } from '../io/file-hasher.js';
import { AccountPause } from './account-pause.js';
import { retryRead } from './read-retry.js';
import { downloadToFile, type DownloadSource } from './download.js';
import { GatewayHttpError, GatewayTransportError } from './errors.js';
import { discard, exchange, headerValue, readText, trackRequestStart, type Exchange } from './http.js';
import { createRedactor, redactDeep, type Redactor } from './redact.js';
import { DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError } from './response-limit.js';
import { normaliseTaskStatus, type TaskStatus } from './task-status.js';
import { parseBaseUrl, parseHttpUrl, resolveRedirect } from './urls.js';

export interface GatewayClientOptions {
  /** SDK-style base, ending with /v1 (a bare origin gets /v1 appended). */
  baseUrl: string;
  apiKey: string;
  /** undici Pool connections (default 64). */
  connections?: number;
  /** Default 10_000. */
  connectTimeoutMs?: number;
  /** Default 300_000 for POST (models can be slow), 30_000 for GET. Given, it applies to both. */
  headersTimeoutMs?: number;
  /** Default 300_000: the longest silence allowed between two body chunks. */
  bodyTimeoutMs?: number;
  /** Default systemClock; every wait (pause, backoff) goes through it. */
  clock?: Clock;
  /** Jitter source; default Math.random. */
  random?: () => number;
  backoff?: BackoffPolicy;
  /** The most bytes of an answer (chat/responses body, poll, error) read into memory. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Told of every exchange with the gateway's own origin: answered (any status) or refused before sending. */
  connectivity?: ConnectivityListener;
}

export interface ConnectivityListener {
  answered(): void;
  /** The connection failed before anything was sent (refused, unknown host, unreachable, connect timeout). */
  refused(error: GatewayTransportError): void;
}

export type SendOutcome =
  | { kind: 'accepted'; taskId: string; body: unknown }
  | { kind: 'completed'; status: number; body: unknown; requestId?: string }
  | { kind: 'rejected'; error: GatewayHttpError }
  | { kind: 'insufficient_balance'; error: GatewayHttpError }
  // A GatewayTransportError here is a connect failure: nothing left the process, so sending again is safe.
  | { kind: 'retry'; error: GatewayHttpError | GatewayTransportError; delayMs: number }
  | { kind: 'ambiguous'; error: Error }
  // A chat/responses answer over maxResponseBytes: the gateway answered (and bills it), but it is not read.
  | { kind: 'oversize'; status: number; limit: number };

export interface DownloadOptions {
  resultUrl?: string;
  signal?: AbortSignal;
  /** Attempts at the content endpoint (and then at result_url) before giving up on it. Default 3. */
  contentAttempts?: number;
  /** Called once the whole body has arrived and checked out; the file's fsync and rename follow. */
  onReceived?: () => void;
}

export interface SendOptions {
  /** Cuts the request anywhere, on the wire too. */
  signal?: AbortSignal;
  /** Once aborted, stops the request if it has not left yet (an account pause, a connection). */
  unsent?: AbortSignal;
  /** Called when the request starts to leave on a connected socket (--rpm counts from then). */
  onWire?: () => void;
}

export interface GatewayClient {
  readonly origin: string;
  listModels(signal?: AbortSignal): Promise<string[]>;
  send(kind: SubmitKind, body: unknown, attempt: number, options?: SendOptions): Promise<SendOutcome>;
  getTask(taskId: string, signal?: AbortSignal): Promise<TaskStatus>;
  download(taskId: string, dest: string, options?: DownloadOptions): Promise<{ bytes: number; sha256: string; source: 'content' | 'result_url' }>;
  pausedUntil(): number;
  /** Holds the account's requests for at least `ms` from now (another runner of the job saw a 429). */
  pauseFor(ms: number): void;
  stats(): { requests: number; retries: number; rateLimited: number };
  close(): Promise<void>;
}

const SUBMIT_PATHS: Readonly<Record<SubmitKind, string>> = {
  chat: '/chat/completions',
  responses: '/responses',
  video: '/video/generations',
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
const USER_AGENT = 'gbatch/0.1';

/** A body parsed, with the key redacted from every string and key in it: the rest of gbatch sees only this. */
function parseJson(text: string, redact: Redactor): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  return redactDeep(json, redact);
}

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const { origin, basePath } = parseBaseUrl(options.baseUrl);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const redact = createRedactor([options.apiKey]);
  const pause = new AccountPause(clock);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 300_000;
  const headersTimeout = { POST: options.headersTimeoutMs ?? 300_000, GET: options.headersTimeoutMs ?? 30_000 };
  const pool = new Pool(origin, { connections: options.connections ?? 64, connectTimeout: options.connectTimeoutMs ?? 10_000 });
  const gateway = pool.compose(trackRequestStart);
  let foreignAgent: Agent | undefined;
  let foreign: Dispatcher | undefined;
  const counters = { requests: 0, retries: 0, rateLimited: 0 };
  const hasher = new FileHasher();
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  const apiUrl = (path: string): URL => new URL(`${basePath}${path}`, origin);

  const abortedBeforeSending = (what: string, cause?: unknown): GatewayTransportError =>
    new GatewayTransportError('GBATCH_ABORTED', false, `${what} aborted before it was sent`, { cause });

  /** One request: waits out any account pause first; a 429 from the gateway pauses the account. */
  async function call(
    method: 'GET' | 'POST',
    url: URL,
    request: { body?: string; attempt: number; accept: string } & SendOptions,
  ): Promise<Exchange> {
    const { body, attempt, signal, unsent, onWire } = request;
    const what = `${method} ${url.pathname}`;
    try {
      // A request held by the account pause must not leave once the run stopped sending (the deadline).
      const waitSignal = unsent && signal && pause.pausedUntil() > 0 ? AbortSignal.any([signal, unsent]) : signal ?? unsent;
      await pause.waitUntilOpen(waitSignal);
    } catch (err) {
      throw abortedBeforeSending(what, err);
    }
    if (signal?.aborted) throw abortedBeforeSending(what, signal.reason);
    if (unsent?.aborted) throw abortedBeforeSending(what, unsent.reason);
    const ownOrigin = url.origin === origin;
    const headers: Record<string, string> = { accept: request.accept, 'user-agent': USER_AGENT };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // The key goes to the gateway's own origin only, never to a result_url host or a redirect elsewhere.
    if (ownOrigin) headers['authorization'] = `Bearer ${options.apiKey}`;
    counters.requests++;
    let response: Exchange;
    try {
      response = await exchange(
        ownOrigin ? gateway : foreignDispatcher(),
        { method, url, headers, headersTimeoutMs: headersTimeout[method], bodyTimeoutMs, ...(body !== undefined ? { body } : {}), ...(signal ? { signal } : {}), ...(unsent ? { unsent } : {}), ...(onWire ? { onWire } : {}) },
        redact,
      );
    } catch (err) {
      if (ownOrigin && err instanceof GatewayTransportError && err.code === 'GBATCH_CONNECT') options.connectivity?.refused(err);
      throw err;
    }
    if (ownOrigin) options.connectivity?.answered();
    if (response.status === 429 && ownOrigin) {
      counters.rateLimited++;
      const retryAfter = headerValue(response.headers, 'retry-after');
      pause.pauseFor(retryDelay({ status: 429, bodyText: '', ...(retryAfter ? { retryAfter } : {}) }, attempt, backoff, clock.now(), random));
    }
    return response;
  }

  /** result_url hosts other than the gateway: a separate agent, never the gateway's pool or key. */
  function foreignDispatcher(): Dispatcher {
    if (!foreignAgent) {
      foreignAgent = new Agent({ connectTimeout: options.connectTimeoutMs ?? 10_000 });
      foreign = foreignAgent.compose(trackRequestStart);
    }
    return foreign!;
  }

  async function answerOf(response: Exchange): Promise<Answer> {
    const answer: Answer = { status: response.status, bodyText: await readText(response, maxResponseBytes) };
    const contentType = headerValue(response.headers, 'content-type');
    const retryAfter = headerValue(response.headers, 'retry-after');
    if (contentType !== undefined) answer.contentType = contentType;
    if (retryAfter !== undefined) answer.retryAfter = retryAfter;
    return answer;
  }

  /** The gateway's request id header, redacted like every text from the gateway. */
  function requestIdOf(response: Exchange): string | undefined {
    const requestId = headerValue(response.headers, 'x-request-id') ?? headerValue(response.headers, 'x-oneapi-request-id');
    return requestId === undefined ? undefined : redact(requestId);
  }

  function httpError(answer: Answer, response: Exchange): GatewayHttpError {
    const requestId = requestIdOf(response);
    const retryAfterMs = answer.status === 429 ? parseRetryAfter(answer.retryAfter, clock.now()) : undefined;
    return GatewayHttpError.fromAnswer(answer, {
      redact,
      ...(requestId !== undefined ? { requestId } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }

  async function send(kind: SubmitKind, body: unknown, attempt: number, options: SendOptions = {}): Promise<SendOutcome> {
    const payload = JSON.stringify(body) as string | undefined;
    if (payload === undefined) throw new TypeError('send() needs a JSON-serialisable request body');
    let response: Exchange;
    let answer: Answer;
    try {
      response = await call('POST', apiUrl(SUBMIT_PATHS[kind]), { body: payload, attempt, accept: 'application/json', ...options });
      answer = await answerOf(response).catch((err: unknown) => {
        // A 4xx status decides by itself even if its body broke off; anything else needs the body.
        if (response.status >= 400 && response.status < 500) return { status: response.status, bodyText: '' };
        throw err;
      });
    } catch (err) {
      if (err instanceof ResponseTooLargeError) return oversize(kind, err);
      if (!(err instanceof GatewayTransportError)) throw err;
      if (err.mayHaveReached) return { kind: 'ambiguous', error: err };
      if (err.code === 'GBATCH_ABORTED') throw err;
      counters.retries++;
      return { kind: 'retry', error: err, delayMs: retryDelay(undefined, attempt, backoff, clock.now(), random) };
    }
    const decision = decideSubmission(kind, answer);
    switch (decision) {
      case 'accepted': {
        const json = parseJson(answer.bodyText, redact);
        return { kind: 'accepted', taskId: extractTaskId(json)!, body: json };
      }
      case 'completed': {
        const requestId = requestIdOf(response);
        return { kind: 'completed', status: answer.status, body: parseJson(answer.bodyText, redact), ...(requestId ? { requestId } : {}) };
      }
      case 'retry': {
        counters.retries++;
        // After a 429 the caller's wait is the account pause itself (one jitter draw, never two).
        const delayMs = answer.status === 429
          ? Math.max(0, pause.pausedUntil() - clock.now())
          : retryDelay(answer, attempt, backoff, clock.now(), random);
        return { kind: 'retry', error: httpError(answer, response), delayMs };
      }
      case 'rejected':
      case 'insufficient_balance':
      case 'ambiguous':
        return { kind: decision, error: httpError(answer, response) };
    }
  }

  /**
   * A 2xx chat/responses answer too large to read is a definite, billed answer. A video submission's
   * task id is in the unread body, and a 3xx/5xx may hide a kept request: both stay ambiguous.
   */
  function oversize(kind: SubmitKind, err: ResponseTooLargeError): SendOutcome {
    if (kind !== 'video' && err.status >= 200 && err.status < 300) return { kind: 'oversize', status: err.status, limit: err.limit };
    return { kind: 'ambiguous', error: err };
  }

  const readWithRetry = <T>(what: string, attemptOnce: (attempt: number) => Promise<T>, signal?: AbortSignal): Promise<T> =>
    retryRead(
      { clock, random, backoff, onRetry: () => void counters.retries++, aborted: (err) => abortedBeforeSending(what, err) },
      attemptOnce,
      signal,
    );

  async function getJson(path: string, attempt: number, signal?: AbortSignal): Promise<unknown> {
    const response = await call('GET', apiUrl(path), { attempt, accept: 'application/json', signal });
    const answer = await answerOf(response).catch((err: unknown) => {
      if (!(err instanceof ResponseTooLargeError)) throw err;
      throw new GatewayHttpError({ status: err.status, gatewayEnvelope: false, message: `GET ${path}: ${err.message}` });
    });
    if (answer.status < 200 || answer.status >= 300) throw httpError(answer, response);
    const json = parseJson(answer.bodyText, redact);
    if (json === undefined) {
      throw new GatewayHttpError({ status: answer.status, gatewayEnvelope: false, message: `GET ${path} answered a body that is not JSON` });
    }
    return json;
  }

  async function listModels(signal?: AbortSignal): Promise<string[]> {
    const json = await readWithRetry('GET /models', (attempt) => getJson('/models', attempt, signal), signal);
    const data = (json as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new GatewayHttpError({ status: 200, gatewayEnvelope: false, message: 'the model list has no `data` array' });
    return data.flatMap((m) => (typeof (m as { id?: unknown })?.id === 'string' ? [(m as { id: string }).id] : []));
  }

  async function getTask(taskId: string, signal?: AbortSignal): Promise<TaskStatus> {
    const path = `/video/generations/${encodeURIComponent(taskId)}`;
    return readWithRetry(`GET ${path}`, async (attempt) => {
      const json = await getJson(path, attempt, signal);
      try {
        return normaliseTaskStatus(json, taskId);
      } catch (err) {
        throw new GatewayHttpError({ status: 200, gatewayEnvelope: false, message: (err as Error).message });
      }
    }, signal);
  }

  /** GET that follows redirects itself, so the Authorization header is decided per hop by origin. */
  async function openFollowingRedirects(start: URL, signal?: AbortSignal): Promise<Exchange> {
    let url = start;
    for (let hop = 0; ; hop++) {
      const response = await call('GET', url, { attempt: 1, accept: '*/*', signal });
      const location = headerValue(response.headers, 'location');
      const next = location === undefined ? undefined : resolveRedirect(location, url);
      if (!REDIRECTS.has(response.status) || next === undefined || hop >= MAX_REDIRECTS) return response;
      await discard(response);
      url = next;
    }
  }

  async function download(taskId: string, dest: string, opts: DownloadOptions = {}) {
    const sources: DownloadSource[] = [{ source: 'content', url: apiUrl(`/videos/${encodeURIComponent(taskId)}/content`) }];
    const resultUrl = parseHttpUrl(opts.resultUrl);
    if (resultUrl) sources.push({ source: 'result_url', url: resultUrl });
    const deps = { open: openFollowingRedirects, clock, random, backoff, redact, hasher, onRetry: () => void counters.retries++ };
    return downloadToFile(deps, taskId, dest, sources, opts.contentAttempts ?? 3, opts.signal, opts.onReceived);
  }

  return {
    origin,
    listModels,
    send,
    getTask,
    download,
    pausedUntil: () => pause.pausedUntil(),
    pauseFor: (ms: number) => pause.pauseFor(ms),
    stats: () => ({ ...counters }),
    async close() {
      await Promise.all([pool.close(), foreignAgent?.close(), hasher.close()]);
    },
  };
}
