// Typed failures of the gateway client, classified once, and the summary the journal stores.
// None of them ever carries the API key: every gateway-supplied text goes through a Redactor.

import { isGatewayEnvelope, readErrorEnvelope, type Answer } from '../core/retry.js';
import { redactDeep, redactNothing, type Redactor } from './redact.js';
import type { SystemError } from './system-error.js';

export const MAX_ERROR_MESSAGE = 500;
/** An error body longer than this is not kept whole: the journal keeps its summary only. */
export const MAX_KEPT_ERROR_BODY = 64 * 1024;

function clip(text: string, max = MAX_ERROR_MESSAGE): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

export interface GatewayHttpErrorFields {
  status: number;
  message: string;
  type?: string;
  code?: string;
  param?: string;
  requestId?: string;
  gatewayEnvelope: boolean;
  retryAfterMs?: number;
  body?: unknown;
}

/** The gateway (or something in front of it) answered with a status we treat as a failure. */
export class GatewayHttpError extends Error {
  readonly status: number;
  readonly type?: string;
  readonly code?: string;
  readonly param?: string;
  readonly requestId?: string;
  readonly gatewayEnvelope: boolean;
  readonly retryAfterMs?: number;
  /**
   * The answer's body as it came, for a batch's error line: its JSON object with the key redacted; absent when
   * the body is not a JSON object or is over MAX_KEPT_ERROR_BODY.
   */
  readonly body?: unknown;

  constructor(fields: GatewayHttpErrorFields) {
    super(`${fields.status} ${clip(fields.message)}`);
    this.name = 'GatewayHttpError';
    this.status = fields.status;
    this.gatewayEnvelope = fields.gatewayEnvelope;
    if (fields.type !== undefined) this.type = fields.type;
    if (fields.code !== undefined) this.code = fields.code;
    if (fields.param !== undefined) this.param = fields.param;
    if (fields.requestId !== undefined) this.requestId = fields.requestId;
    if (fields.retryAfterMs !== undefined) this.retryAfterMs = fields.retryAfterMs;
    if (fields.body !== undefined) this.body = fields.body;
  }

  /** Builds the error from an answer, reading either envelope (spec 7.1 general, 7.2 task). */
  static fromAnswer(
    answer: Answer,
    extra: { requestId?: string; retryAfterMs?: number; redact?: Redactor } = {},
  ): GatewayHttpError {
    const redact = extra.redact ?? redactNothing;
    const envelope = isGatewayEnvelope(answer.bodyText);
    const fields: GatewayHttpErrorFields = {
      status: answer.status,
      message: '',
      gatewayEnvelope: envelope,
      ...(extra.requestId !== undefined ? { requestId: redact(extra.requestId) } : {}),
      ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
    };
    const body = answer.bodyText.length <= MAX_KEPT_ERROR_BODY ? keptBody(answer.bodyText, redact) : undefined;
    if (body !== undefined) fields.body = body;
    // Read loosely (a third-party server's `{error: {message}}` without `type`); `gatewayEnvelope` stays strict.
    const read = readErrorEnvelope(answer.bodyText);
    if (read) {
      fields.message = redact(read.message);
      if (read.type !== undefined) fields.type = redact(read.type);
      if (read.param !== undefined) fields.param = redact(read.param);
      if (read.code !== undefined) fields.code = redact(read.code);
    } else {
      // The content type is the gateway's text too (a header can echo anything).
      const kind = answer.contentType ? redact(answer.contentType.split(';')[0]!.trim()) : 'no content type';
      const snippet = clip(redact(answer.bodyText.replace(/<[^>]*>/g, ' ')), 200);
      fields.message = `answer without the gateway's error envelope (${kind})${snippet ? `: ${snippet}` : ''}`;
    }
    if (fields.message === '') fields.message = '(empty message)';
    return new GatewayHttpError(fields);
  }
}

/** A body as it came when it is a JSON object (a batch line's body is one), the key redacted from every string. */
function keptBody(text: string, redact: Redactor): Record<string, unknown> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  return typeof json === 'object' && json !== null && !Array.isArray(json)
    ? redactDeep(json as Record<string, unknown>, redact)
    : undefined;
}

export type TransportErrorCode = 'GBATCH_CONNECT' | 'GBATCH_TIMEOUT' | 'GBATCH_RESET' | 'GBATCH_ABORTED';

/** No usable answer: connection refused, timeout, reset, or the caller aborted. */
export class GatewayTransportError extends Error {
  readonly code: TransportErrorCode;
  /** False only when the connection was never established, so nothing of the request left the process. */
  readonly mayHaveReached: boolean;
  /** The operating system's errno behind it (ECONNREFUSED, ENOTFOUND, ...), when there is one. */
  readonly systemError?: SystemError;

  constructor(
    code: TransportErrorCode,
    mayHaveReached: boolean,
    message: string,
    options?: { cause?: unknown; systemError?: SystemError },
  ) {
    super(clip(message), options);
    this.name = 'GatewayTransportError';
    this.code = code;
    this.mayHaveReached = mayHaveReached;
    if (options?.systemError) this.systemError = options.systemError;
  }
}

export type DownloadFailure = 'http' | 'transport' | 'truncated' | 'empty' | 'not_video' | 'io';

/** A video could not be fetched and stored; `dest` was left untouched. */
export class DownloadError extends Error {
  readonly code = 'GBATCH_DOWNLOAD';
  readonly taskId: string;
  readonly reason: DownloadFailure;
  readonly source: 'content' | 'result_url';
  readonly status?: number;
  readonly attempts: number;

  constructor(
    fields: {
      taskId: string;
      reason: DownloadFailure;
      source: 'content' | 'result_url';
      status?: number;
      attempts: number;
      message: string;
    },
    options?: { cause?: unknown },
  ) {
    super(clip(fields.message), options);
    this.name = 'DownloadError';
    this.taskId = fields.taskId;
    this.reason = fields.reason;
    this.source = fields.source;
    this.attempts = fields.attempts;
    if (fields.status !== undefined) this.status = fields.status;
  }
}

export interface ErrorSummary {
  status?: number;
  code?: string;
  type?: string;
  param?: string;
  message: string;
}

/** What the journal stores about a failure: small, stable fields, never the key, never a raw body. */
export function errorSummary(err: unknown): ErrorSummary {
  if (err instanceof GatewayHttpError) {
    return {
      status: err.status,
      ...(err.code !== undefined ? { code: err.code } : {}),
      ...(err.type !== undefined ? { type: err.type } : {}),
      ...(err.param !== undefined ? { param: err.param } : {}),
      message: err.message,
    };
  }
  if (err instanceof DownloadError) {
    return {
      ...(err.status !== undefined ? { status: err.status } : {}),
      code: err.code,
      type: err.reason,
      message: err.message,
    };
  }
  if (err instanceof GatewayTransportError) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { ...(typeof code === 'string' ? { code } : {}), message: clip(err.message || err.name) };
  }
  return { message: clip(String(err)) };
}
