// Safe reads (GET) of the gateway's JSON: the model list and a video task's status, each retried within
// bounds (read-retry.ts); a body that is not the JSON expected is an error of the answer, not a crash.

import { answerOf, httpError, parseJson } from './answer.js';
import type { ClientContext } from './client-context.js';
import { GatewayHttpError } from './errors.js';
import { abortedBeforeSending } from './gateway-call.js';
import { retryRead } from './read-retry.js';
import { ResponseTooLargeError } from './response-limit.js';
import { normaliseTaskStatus, type TaskStatus } from './task-status.js';

export async function listModels(ctx: ClientContext, signal?: AbortSignal): Promise<string[]> {
  const json = await readWithRetry(ctx, 'GET /models', (attempt) => getJson(ctx, '/models', attempt, signal), signal);
  const data = (json as { data?: unknown }).data;
  if (!Array.isArray(data))
    throw new GatewayHttpError({ status: 200, gatewayEnvelope: false, message: 'the model list has no `data` array' });
  return data.flatMap((m) => (typeof (m as { id?: unknown })?.id === 'string' ? [(m as { id: string }).id] : []));
}

export async function getTask(ctx: ClientContext, taskId: string, signal?: AbortSignal): Promise<TaskStatus> {
  const path = `/video/generations/${encodeURIComponent(taskId)}`;
  return readWithRetry(
    ctx,
    `GET ${path}`,
    async (attempt) => {
      const json = await getJson(ctx, path, attempt, signal);
      try {
        return normaliseTaskStatus(json, taskId);
      } catch (err) {
        throw new GatewayHttpError({ status: 200, gatewayEnvelope: false, message: (err as Error).message });
      }
    },
    signal,
  );
}

export function readWithRetry<T>(
  ctx: ClientContext,
  what: string,
  attemptOnce: (attempt: number) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const { clock, random, backoff, counters } = ctx;
  return retryRead(
    {
      clock,
      random,
      backoff,
      onRetry: () => void counters.retries++,
      aborted: (err) => abortedBeforeSending(what, err),
    },
    attemptOnce,
    signal,
  );
}

async function getJson(ctx: ClientContext, path: string, attempt: number, signal?: AbortSignal): Promise<unknown> {
  const response = await ctx.call('GET', ctx.apiUrl(path), { attempt, accept: 'application/json', signal });
  const answer = await answerOf(response, ctx.maxResponseBytes).catch((err: unknown) => {
    if (!(err instanceof ResponseTooLargeError)) throw err;
    throw new GatewayHttpError({ status: err.status, gatewayEnvelope: false, message: `GET ${path}: ${err.message}` });
  });
  if (answer.status < 200 || answer.status >= 300) throw httpError(answer, response, ctx.redact, ctx.clock.now());
  const json = parseJson(answer.bodyText, ctx.redact);
  if (json === undefined) {
    throw new GatewayHttpError({
      status: answer.status,
      gatewayEnvelope: false,
      message: `GET ${path} answered a body that is not JSON`,
    });
  }
  return json;
}
