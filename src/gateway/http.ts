// One HTTP exchange over undici, with the one fact undici does not report directly: whether the request
// started to leave on a connected socket. That fact separates "nothing was sent" (safe to send again)
// from "the gateway may have it" (spec 4, rule 7).

import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { GatewayTransportError, type TransportErrorCode } from './errors.js';
import type { Redactor } from './redact.js';
import { systemErrorOf } from './system-error.js';
import { linkUnsent } from './unsent-signal.js';
import { DEFAULT_MAX_RESPONSE_BYTES, readBounded, ResponseTooLargeError } from './response-limit.js';

const ON_REQUEST_START = Symbol('gbatch.onRequestStart');

type TrackedOptions = Dispatcher.DispatchOptions & { [ON_REQUEST_START]?: () => void };

/**
 * Interceptor: calls the request's hook when undici hands it to a connected socket (onRequestStart
 * runs right before the request line is written) and did not abort it there. Never called when the
 * connection failed or the request was aborted while still queued.
 */
export const trackRequestStart: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const hook = (opts as TrackedOptions)[ON_REQUEST_START];
  if (!hook) return dispatch(opts, handler);
  const tracked: Dispatcher.DispatchHandler = {
    onRequestStart(controller, context) {
      handler.onRequestStart?.(controller, context);
      if (!controller.aborted) hook();
    },
    onRequestUpgrade: (controller, statusCode, headers, socket) =>
      handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart: (controller, statusCode, headers, statusMessage) =>
      handler.onResponseStart?.(controller, statusCode, headers, statusMessage),
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  };
  return dispatch(opts, tracked);
};

export interface ExchangeRequest {
  method: 'GET' | 'POST';
  /** Absolute URL; its origin must be the dispatcher's (or any origin for an Agent). */
  url: URL;
  headers: Record<string, string>;
  body?: string;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  signal?: AbortSignal;
  /** Aborted, it stops the request only if nothing of it has left yet (see unsent-signal.ts). */
  unsent?: AbortSignal;
  /** Called when the request starts to leave on a connected socket. */
  onWire?: () => void;
}

export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData['body'];
  /** Maps a failure while reading this exchange's body to a transport error (the request had been sent). */
  failure(err: unknown): GatewayTransportError;
}

/** Which part of a request a message may show: method and path, never the query (signed URLs) or headers. */
export function describeRequest(method: string, url: URL): string {
  return `${method} ${url.origin}${url.pathname}`;
}

function errorCodeOf(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function toTransportError(
  err: unknown,
  context: { sent: boolean; aborted: boolean; what: string; redact: Redactor },
): GatewayTransportError {
  if (err instanceof GatewayTransportError) return err;
  const code = errorCodeOf(err);
  let kind: TransportErrorCode;
  if (context.aborted) kind = 'GBATCH_ABORTED';
  else if (!context.sent) kind = 'GBATCH_CONNECT';
  else if (code !== undefined && TIMEOUT_CODES.has(code)) kind = 'GBATCH_TIMEOUT';
  else kind = 'GBATCH_RESET';
  const detail = err instanceof Error ? err.message || err.name : String(err);
  const when = context.sent ? 'after the request was sent' : 'before the request was sent';
  const message = `${context.what} failed ${when}: ${detail}${code ? ` (${code})` : ''}`;
  const system = systemErrorOf(err);
  const systemError = system && { code: system.code, message: context.redact(system.message) };
  return new GatewayTransportError(kind, context.sent, context.redact(message), {
    cause: err,
    ...(systemError ? { systemError } : {}),
  });
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Sends one request. Throws GatewayTransportError when no status came back. */
export async function exchange(dispatcher: Dispatcher, request: ExchangeRequest, redact: Redactor): Promise<Exchange> {
  let sent = false;
  const what = describeRequest(request.method, request.url);
  const link = linkUnsent(request.signal, request.unsent);
  const signal = link.signal;
  const failure = (err: unknown): GatewayTransportError =>
    toTransportError(err, { sent, aborted: signal?.aborted === true, what, redact });
  const options: TrackedOptions & Dispatcher.RequestOptions = {
    origin: request.url.origin,
    path: `${request.url.pathname}${request.url.search}`,
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
    headersTimeout: request.headersTimeoutMs,
    bodyTimeout: request.bodyTimeoutMs,
    signal: signal ?? null,
    [ON_REQUEST_START]: () => {
      sent = true;
      link.onSent();
      request.onWire?.();
    },
  };
  const pending = dispatcher.request(options);
  try {
    const response = await (signal ? raceQueuedAbort(pending, signal, () => sent) : pending);
    response.body.once('close', link.detach);
    return { status: response.statusCode, headers: response.headers, body: response.body, failure };
  } catch (err) {
    link.detach();
    throw failure(err);
  }
}

/**
 * undici applies an abort to a request still queued for a connection only once a connection frees up
 * (and then never writes it). Settle at once instead, so a shutdown does not wait behind slow requests.
 */
function raceQueuedAbort<T>(pending: Promise<T>, signal: AbortSignal, sent: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      if (!sent()) reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Reads a whole body as text, at most `maxBytes` of it (ResponseTooLargeError beyond); a failure
 * mid-body is a transport error after sending.
 */
export async function readText(response: Exchange, maxBytes = DEFAULT_MAX_RESPONSE_BYTES): Promise<string> {
  try {
    return await readBounded(
      response.body as unknown as AsyncIterable<Buffer>,
      response.status,
      maxBytes,
      headerValue(response.headers, 'content-length'),
    );
  } catch (err) {
    if (err instanceof ResponseTooLargeError) throw err;
    throw response.failure(err);
  }
}

/** Throws away a body we do not need, without failing the caller. */
export async function discard(response: Exchange): Promise<void> {
  try {
    await response.body.dump();
  } catch {
    // The connection is closed by undici; nothing else to do.
  }
}
