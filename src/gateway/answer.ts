// Reading what the gateway answered: the body (bounded), the request id, the error it stands for, and
// its JSON with the key redacted from every string and key: the rest of gbatch sees only this.

import { parseRetryAfter, type Answer } from '../core/retry.js';
import { GatewayHttpError } from './errors.js';
import { headerValue, readText, type Exchange } from './http.js';
import { redactDeep, type Redactor } from './redact.js';

export async function answerOf(response: Exchange, maxResponseBytes: number): Promise<Answer> {
  const answer: Answer = { status: response.status, bodyText: await readText(response, maxResponseBytes) };
  const contentType = headerValue(response.headers, 'content-type');
  const retryAfter = headerValue(response.headers, 'retry-after');
  if (contentType !== undefined) answer.contentType = contentType;
  if (retryAfter !== undefined) answer.retryAfter = retryAfter;
  return answer;
}

/** The gateway's request id header, redacted like every text from the gateway. */
export function requestIdOf(response: Exchange, redact: Redactor): string | undefined {
  const requestId =
    headerValue(response.headers, 'x-request-id') ?? headerValue(response.headers, 'x-oneapi-request-id');
  return requestId === undefined ? undefined : redact(requestId);
}

export function httpError(answer: Answer, response: Exchange, redact: Redactor, now: number): GatewayHttpError {
  const requestId = requestIdOf(response, redact);
  const retryAfterMs = answer.status === 429 ? parseRetryAfter(answer.retryAfter, now) : undefined;
  return GatewayHttpError.fromAnswer(answer, {
    redact,
    ...(requestId !== undefined ? { requestId } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/** A body parsed, with the key redacted; undefined when it is not JSON. */
export function parseJson(text: string, redact: Redactor): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  return redactDeep(json, redact);
}
