// A submission (POST): one request, never retried here (the runner journals every attempt), its answer
// turned into a typed outcome by core's decideSubmission.

import { decideSubmission, extractTaskId, retryDelay, type Answer, type SubmitKind } from '../core/retry.js';
import { answerOf, httpError, parseJson, requestIdOf } from './answer.js';
import type { ClientContext } from './client-context.js';
import type { SendOptions, SendOutcome } from './client-types.js';
import { GatewayTransportError } from './errors.js';
import type { Exchange } from './http.js';
import { ResponseTooLargeError } from './response-limit.js';

const SUBMIT_PATHS: Readonly<Record<SubmitKind, string>> = {
  chat: '/chat/completions',
  responses: '/responses',
  video: '/video/generations',
};

export async function submit(
  ctx: ClientContext,
  kind: SubmitKind,
  body: unknown,
  attempt: number,
  options: SendOptions = {},
): Promise<SendOutcome> {
  const { clock, backoff, random, counters, redact } = ctx;
  const payload = JSON.stringify(body) as string | undefined;
  if (payload === undefined) throw new TypeError('send() needs a JSON-serialisable request body');
  let response: Exchange;
  let answer: Answer;
  try {
    response = await ctx.call('POST', ctx.apiUrl(SUBMIT_PATHS[kind]), {
      body: payload,
      attempt,
      accept: 'application/json',
      ...options,
    });
    answer = await answerOf(response, ctx.maxResponseBytes).catch((err: unknown) => {
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
      const requestId = requestIdOf(response, redact);
      return {
        kind: 'completed',
        status: answer.status,
        body: parseJson(answer.bodyText, redact),
        ...(requestId ? { requestId } : {}),
      };
    }
    case 'retry': {
      counters.retries++;
      // After a 429 the caller's wait is the account pause itself (one jitter draw, never two).
      const delayMs =
        answer.status === 429
          ? Math.max(0, ctx.pause.pausedUntil() - clock.now())
          : retryDelay(answer, attempt, backoff, clock.now(), random);
      return { kind: 'retry', error: httpError(answer, response, redact, clock.now()), delayMs };
    }
    case 'rejected':
    case 'insufficient_balance':
    case 'ambiguous':
      return { kind: decision, error: httpError(answer, response, redact, clock.now()) };
  }
}

/**
 * A 2xx chat/responses answer too large to read is a definite, billed answer. A video submission's
 * task id is in the unread body, and a 3xx/5xx may hide a kept request: both stay ambiguous.
 */
function oversize(kind: SubmitKind, err: ResponseTooLargeError): SendOutcome {
  if (kind !== 'video' && err.status >= 200 && err.status < 300)
    return { kind: 'oversize', status: err.status, limit: err.limit };
  return { kind: 'ambiguous', error: err };
}
