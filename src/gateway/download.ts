// Streams a finished video to its target (a file, or an object on S3-compatible storage), length checked,
// then finished there (sha256, durable, under its final name). Each source is retried with backoff; the
// destination is either the complete output or untouched.

import pRetry from 'p-retry';
import type { Clock } from '../core/clock.js';
import { parseRetryAfter, retryDelay, shouldRetryDownload, type Answer, type BackoffPolicy } from '../core/retry.js';
import { diskTarget } from '../io/disk-target.js';
import type { FileHasher } from '../io/file-hasher.js';
import type { BodyTarget, ReceivedBody } from '../io/output-store.js';
import { DownloadError, GatewayHttpError, GatewayTransportError } from './errors.js';
import { headerValue, readText, type Exchange } from './http.js';
import type { Redactor } from './redact.js';
import { ERROR_BODY_LIMIT } from './response-limit.js';

export type DownloadSourceKind = 'content' | 'result_url';

export interface DownloadSource {
  source: DownloadSourceKind;
  url: URL;
}

export interface DownloadDeps {
  /** One GET of `url` (after any account pause, with auth only where allowed, redirects followed). */
  open(url: URL, signal?: AbortSignal): Promise<Exchange>;
  clock: Clock;
  random: () => number;
  backoff: BackoffPolicy;
  redact: Redactor;
  hasher: FileHasher;
  onRetry(): void;
}

export interface DownloadResult {
  bytes: number;
  sha256: string;
  source: DownloadSourceKind;
}

const FILE_SYSCALLS = new Set(['open', 'write', 'read', 'fsync', 'close', 'rename', 'mkdir']);

function isFileSystemError(err: unknown): boolean {
  const syscall = (err as { syscall?: unknown } | null)?.syscall;
  return typeof syscall === 'string' && FILE_SYSCALLS.has(syscall);
}

/** Bodies that are certainly not a video: an error page or an error envelope answered with 200. */
function isNotVideo(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*(application\/(?:problem\+)?json|text\/html)/i.test(contentType);
}

/** Transient trouble worth another attempt: no answer, a cut or empty body, a 429 or 5xx, or content not ready yet. */
export function isRetryableDownload(err: DownloadError): boolean {
  switch (err.reason) {
    case 'transport':
    case 'truncated':
    case 'empty':
      return true;
    case 'http':
      return shouldRetryDownload(err.source, { status: err.status ?? 0, bodyText: '' });
    default:
      return false;
  }
}

async function fetchOnce(
  deps: DownloadDeps,
  taskId: string,
  from: DownloadSource,
  target: BodyTarget,
  attempt: number,
  signal?: AbortSignal,
): Promise<ReceivedBody> {
  const fail = (reason: DownloadError['reason'], message: string, extra: { status?: number; cause?: unknown } = {}) =>
    new DownloadError(
      {
        taskId,
        reason,
        source: from.source,
        attempts: attempt,
        message: `${from.source}: ${message}`,
        ...(extra.status !== undefined ? { status: extra.status } : {}),
      },
      { cause: extra.cause },
    );
  let response: Exchange;
  try {
    response = await deps.open(from.url, signal);
  } catch (err) {
    if (err instanceof GatewayTransportError && err.code !== 'GBATCH_ABORTED')
      throw fail('transport', err.message, { cause: err });
    throw err;
  }
  const contentType = headerValue(response.headers, 'content-type');
  if (response.status !== 200 || isNotVideo(contentType)) {
    const bodyText = await readText(response, ERROR_BODY_LIMIT).catch(() => '');
    const answer: Answer = { status: response.status, bodyText, ...(contentType ? { contentType } : {}) };
    const retryAfter = headerValue(response.headers, 'retry-after');
    if (retryAfter !== undefined) answer.retryAfter = retryAfter;
    const retryAfterMs = response.status === 429 ? parseRetryAfter(retryAfter, deps.clock.now()) : undefined;
    const httpError = GatewayHttpError.fromAnswer(answer, {
      redact: deps.redact,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
    const reason = response.status === 200 ? 'not_video' : 'http';
    throw fail(reason, httpError.message, { status: response.status, cause: httpError });
  }
  /** A file system error becomes the download's `io` failure; anything else passes unchanged. */
  const rethrowAsIo = (err: unknown): never => {
    throw isFileSystemError(err)
      ? fail('io', deps.redact(err instanceof Error ? err.message : String(err)), { cause: err })
      : err;
  };
  let received: ReceivedBody;
  try {
    received = await target.receive(response.body as AsyncIterable<Buffer>);
  } catch (err) {
    if (isFileSystemError(err)) rethrowAsIo(err);
    const transport = response.failure(err);
    if (transport.code === 'GBATCH_ABORTED') throw transport;
    throw fail('transport', transport.message, { cause: transport });
  }
  const declared = headerValue(response.headers, 'content-length');
  const short = declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) !== received.bytes;
  if (short || received.bytes === 0) {
    await received.discard().catch(rethrowAsIo);
    if (short) throw fail('truncated', `received ${received.bytes} of ${declared} bytes`, { status: 200 });
    throw fail('empty', 'the answer had no bytes', { status: 200 });
  }
  return { ...received, finish: () => received.finish().catch(rethrowAsIo) };
}

/**
 * Tries each source in order, `attemptsPerSource` times each with backoff. A source that answers a
 * definite refusal (a 4xx other than 429, or an error page served as 200) is left at once for the next.
 * `onReceived` is told when a whole, checked body has arrived; its fsync and rename are still to come.
 */
export async function downloadToFile(
  deps: DownloadDeps,
  taskId: string,
  dest: string | BodyTarget,
  sources: readonly DownloadSource[],
  attemptsPerSource: number,
  signal?: AbortSignal,
  onReceived?: () => void,
): Promise<DownloadResult> {
  const target = typeof dest === 'string' ? diskTarget(dest, deps.hasher) : dest;
  await target.prepare();
  const failures: DownloadError[] = [];
  try {
    for (const from of sources) {
      try {
        const written = await pRetry((attempt) => fetchOnce(deps, taskId, from, target, attempt, signal), {
          retries: Math.max(0, attemptsPerSource - 1),
          minTimeout: 0, // p-retry's own timer is bypassed: waits go through the injected clock below
          ...(signal ? { signal } : {}),
          onFailedAttempt: ({ error }) => {
            if (error instanceof DownloadError) failures.push(error);
          },
          shouldRetry: async ({ error, attemptNumber }) => {
            if (!(error instanceof DownloadError) || !isRetryableDownload(error)) return false;
            deps.onRetry();
            const answer =
              error.status !== undefined && error.status !== 200 ? { status: error.status, bodyText: '' } : undefined;
            const cause = error.cause;
            const wait =
              cause instanceof GatewayHttpError && cause.retryAfterMs !== undefined
                ? cause.retryAfterMs
                : retryDelay(answer, attemptNumber, deps.backoff, deps.clock.now(), deps.random);
            await deps.clock.sleep(wait, signal);
            return true;
          },
        });
        onReceived?.();
        const sha256 = await written.finish();
        return { bytes: written.bytes, sha256, source: from.source };
      } catch (err) {
        if (!(err instanceof DownloadError) || err.reason === 'io') throw err;
      }
    }
    const last = failures.at(-1);
    const summary = failures
      .map((f) => f.message)
      .slice(-4)
      .join('; ');
    throw new DownloadError(
      {
        taskId,
        reason: last?.reason ?? 'transport',
        source: last?.source ?? 'content',
        attempts: failures.length,
        message: `download of task ${taskId} failed after ${failures.length} attempt(s): ${summary}`,
        ...(last?.status !== undefined ? { status: last.status } : {}),
      },
      { cause: last },
    );
  } catch (err) {
    await target.clear();
    if (signal?.aborted && !(err instanceof GatewayTransportError)) {
      throw new GatewayTransportError('GBATCH_ABORTED', false, `download of task ${taskId} aborted`, { cause: err });
    }
    throw err;
  }
}
