// What an HTTP answer means for a submission or a read, and how long to wait before trying again.
// Pure: no I/O, time and randomness come in as arguments.

import { positiveKnob } from './test-knob.js';

export interface Answer {
  status: number;
  contentType?: string;
  bodyText: string;
  retryAfter?: string;
}

export type SubmitKind = 'chat' | 'responses' | 'video';

export type SubmitDecision = 'accepted' | 'completed' | 'rejected' | 'insufficient_balance' | 'retry' | 'ambiguous';

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  maxAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000, maxAttempts: 8 };

/**
 * A run's backoff between its client's attempts: DEFAULT_BACKOFF, whose base GBATCH_GATEWAY_BACKOFF_MS
 * replaces (a test knob: a test of a gateway that keeps failing cannot wait up to a second per attempt).
 */
export function runBackoff(env: NodeJS.ProcessEnv): BackoffPolicy {
  return { ...DEFAULT_BACKOFF, baseMs: positiveKnob(env, 'GBATCH_GATEWAY_BACKOFF_MS', DEFAULT_BACKOFF.baseMs) };
}

/** Longest wait a Retry-After may impose: a broken header must not park the whole account for a day. */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for the gateway's own error bodies: general `{error:{message,type}}` (7.1) or task `{code,message}` (7.2). */
export function isGatewayEnvelope(bodyText: string): boolean {
  const json = parseJson(bodyText);
  if (!isRecord(json)) return false;
  const error = json['error'];
  if (isRecord(error) && typeof error['message'] === 'string' && typeof error['type'] === 'string') return true;
  return typeof json['code'] === 'string' && typeof json['message'] === 'string';
}

export interface ErrorEnvelopeFields {
  message: string;
  type?: string;
  code?: string;
  param?: string;
}

function optionalText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * The error a body carries, as loosely as OpenAI-compatible servers send it: `{error: {message, ...}}`
 * (with or without `type`), `{error: "text"}`, or the task envelope `{code, message}` (spec 7.2).
 * Undefined when the body is none of these.
 */
export function readErrorEnvelope(bodyText: string): ErrorEnvelopeFields | undefined {
  const json = parseJson(bodyText);
  if (!isRecord(json)) return undefined;
  const error = json['error'];
  if (isRecord(error) && typeof error['message'] === 'string') {
    const fields: ErrorEnvelopeFields = { message: error['message'] };
    for (const key of ['type', 'code', 'param'] as const) {
      const text = optionalText(error[key]);
      if (text !== undefined) fields[key] = text;
    }
    return fields;
  }
  if (typeof error === 'string' && error.trim() !== '') return { message: error };
  if (typeof json['code'] === 'string' && typeof json['message'] === 'string')
    return { message: json['message'], code: json['code'] };
  return undefined;
}

/**
 * A 2xx answer that is a refusal: an error envelope with no result beside it (no `choices` for chat, no
 * `output` for responses, no task id for video). For video the task envelope `{code, message}` with a
 * code other than `success` counts too. A body that has a result is one, whatever else it says: a
 * result may be billed.
 */
function isRefusal(kind: SubmitKind, json: Record<string, unknown>): boolean {
  const hasResult =
    kind === 'chat'
      ? json['choices'] !== undefined
      : kind === 'responses'
        ? json['output'] !== undefined
        : extractTaskId(json) !== undefined;
  if (hasResult) return false;
  const error = json['error'];
  if ((isRecord(error) && typeof error['message'] === 'string') || (typeof error === 'string' && error.trim() !== ''))
    return true;
  return (
    kind === 'video' &&
    typeof json['code'] === 'string' &&
    json['code'].toLowerCase() !== 'success' &&
    typeof json['message'] === 'string'
  );
}

/** The task id of a video submission answer (`id`, or the compatibility `task_id`), if it has one. */
export function extractTaskId(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  for (const candidate of [body['id'], body['task_id']]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate;
  }
  // Tolerated: a submission answer wrapped like the task status (Shape A).
  const data = body['data'];
  if (isRecord(data) && data !== body) return extractTaskId({ id: data['task_id'], task_id: data['id'] });
  return undefined;
}

/**
 * Every task id a video submission answer names, first the one extractTaskId picks: `id` and `task_id`
 * may differ (a gateway's own id beside its upstream's), and only one of them may be pollable.
 */
export function submittedTaskIds(body: unknown): string[] {
  const ids: string[] = [];
  const add = (value: unknown): void => {
    if (typeof value === 'string' && value.trim() !== '' && !ids.includes(value)) ids.push(value);
  };
  add(extractTaskId(body));
  if (isRecord(body)) {
    add(body['id']);
    add(body['task_id']);
    const data = body['data'];
    if (isRecord(data)) {
      add(data['task_id']);
      add(data['id']);
    }
  }
  return ids;
}

/**
 * Classifies one submission answer (runner contract, "Submissions and retries"):
 * a retry is only decided where the gateway certainly kept nothing; anything that might hide a kept
 * request (504, a 5xx page from an intermediary, a 2xx we cannot read) is ambiguous. A 2xx whose body
 * is an error envelope is the gateway's refusal (`rejected`), never a result.
 */
export function decideSubmission(kind: SubmitKind, answer: Answer): SubmitDecision {
  const { status } = answer;
  if (status >= 200 && status < 300) {
    const json = parseJson(answer.bodyText);
    if (!isRecord(json)) return 'ambiguous';
    // The gateway (or a third-party server) refused it with a 2xx status: a definite answer, not a result.
    if (isRefusal(kind, json)) return 'rejected';
    if (kind === 'video') return extractTaskId(json) !== undefined ? 'accepted' : 'ambiguous';
    return 'completed';
  }
  if (status === 402) return 'insufficient_balance';
  if (status === 429) return 'retry';
  if (status >= 400 && status < 500) return 'rejected';
  if ((status === 500 || status === 502 || status === 503) && isGatewayEnvelope(answer.bodyText)) return 'retry';
  return 'ambiguous';
}

const HTTP_DATE =
  /^(?:[A-Za-z]{3},\s*\d{1,2}[\s-][A-Za-z]{3}[\s-]\d{2,4}\s+\d{2}:\d{2}:\d{2}\s+GMT|[A-Za-z]{3,9},\s*\d{1,2}-[A-Za-z]{3}-\d{2}\s+\d{2}:\d{2}:\d{2}\s+GMT|[A-Za-z]{3}\s+[A-Za-z]{3}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}\s+\d{4})$/;

/**
 * Retry-After in ms: delay-seconds (spec 8: integer, at least 1; fractions tolerated) or an HTTP date.
 * At least 1 s, at most 15 min; anything unreadable is undefined (the caller falls back to backoff).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number | undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) {
    ms = Math.ceil(Number(text) * 1000);
  } else if (HTTP_DATE.test(text)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) ms = at - nowMs;
  }
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(1000, ms));
}

/** Full jitter: a uniform wait in [0, min(maxMs, baseMs * 2^(attempt-1))]. `attempt` is 1-based. */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const exponent = Math.min(Math.max(0, Math.floor(attempt) - 1), 30);
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * ceiling);
}

/** The wait before retrying after `answer` (undefined: no answer at all). Retry-After wins on a 429. */
export function retryDelay(
  answer: Answer | undefined,
  attempt: number,
  policy: BackoffPolicy,
  nowMs: number,
  random: () => number,
): number {
  if (answer?.status === 429) {
    const fromHeader = parseRetryAfter(answer.retryAfter, nowMs);
    if (fromHeader !== undefined) return fromHeader;
  }
  return backoffDelay(attempt, policy, random);
}

/** Reads (GET) are safe to repeat: retry on no answer, 429 and 5xx; never on another 4xx. */
export function shouldRetryRead(answer: Answer | undefined): boolean {
  if (answer === undefined) return true;
  return answer.status === 429 || answer.status >= 500;
}

/**
 * A download's answer: as a read, and the content endpoint's 400 too, which is how it says a task is not
 * ready for download yet (spec 3.1), not a refusal: a task just reported SUCCESS may still be preparing it.
 */
export function shouldRetryDownload(source: 'content' | 'result_url', answer: Answer | undefined): boolean {
  if (source === 'content' && answer?.status === 400) return true;
  return shouldRetryRead(answer);
}
