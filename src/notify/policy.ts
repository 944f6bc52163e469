// Pure decisions of the notifier: whether to try a webhook again and when, and which budget
// thresholds a run has just crossed, and what they count.
import { parseRetryAfter } from '../core/retry.js';

export interface SendPolicy {
  /** One attempt's bound: connect, headers and body. */
  attemptTimeoutMs: number;
  /** Every attempt and wait of one notification together; then it gives up with one line. */
  totalMs: number;
  /** First backoff; doubles per attempt (full jitter), capped by maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_SEND_POLICY: SendPolicy = {
  attemptTimeoutMs: 5_000,
  totalMs: 30_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
};

export type AttemptAnswer = { status: number; retryAfter?: string | undefined } | { error: string };

export type NextStep = { kind: 'done' } | { kind: 'retry'; delayMs: number } | { kind: 'give-up'; reason: string };

/**
 * After one attempt: 2xx is done; a network error, a timeout or a 5xx is tried again after a backoff;
 * 429 after its Retry-After (capped by the policy's longest wait); any other answer gives up (a 4xx
 * will not change by asking again). A wait that would end past the total bound gives up instead.
 */
export function nextStep(
  answer: AttemptAnswer,
  attempt: number,
  elapsedMs: number,
  policy: SendPolicy,
  nowMs: number,
  random: () => number,
): NextStep {
  let reason: string;
  let floorMs = 0;
  if ('error' in answer) {
    reason = answer.error;
  } else if (answer.status >= 200 && answer.status < 300) {
    return { kind: 'done' };
  } else if (answer.status >= 500 || answer.status === 429) {
    reason = `HTTP ${answer.status}`;
    if (answer.status === 429) floorMs = Math.min(policy.maxDelayMs, parseRetryAfter(answer.retryAfter, nowMs) ?? 0);
  } else {
    return { kind: 'give-up', reason: `HTTP ${answer.status}, not retried` };
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const delayMs = Math.max(floorMs, Math.round(random() * ceiling));
  // The next attempt must have a chance to finish inside the bound.
  if (elapsedMs + delayMs >= policy.totalMs)
    return { kind: 'give-up', reason: `${reason} after ${attempt} attempt(s)` };
  return { kind: 'retry', delayMs };
}

/**
 * Budget thresholds crossed upward: below at the run's start, reached now, not yet announced. Only the
 * highest of several crossed at once is returned (the lower ones count as announced with it).
 */
export function crossedThreshold(
  thresholds: readonly number[],
  startPct: number,
  nowPct: number,
  announced: ReadonlySet<number>,
): { announce: number; covers: number[] } | undefined {
  const crossed = thresholds.filter((t) => startPct < t && nowPct >= t && !announced.has(t));
  if (crossed.length === 0) return undefined;
  return { announce: Math.max(...crossed), covers: crossed };
}

/**
 * What a threshold counts: 'billed' (`--notify-at`) what the gateway has billed or will bill for work done,
 * the charges of answered rows (settled or not); 'reserved' (`--notify-reserved-at`) that plus what is
 * reserved for requests in flight, the sum the budget caps.
 */
export type ThresholdBasis = 'billed' | 'reserved';

/** The spend a threshold of `basis` counts, as a percentage of the budget. */
export function thresholdPct(
  basis: ThresholdBasis,
  spend: { actualUsd: number; reservedUsd: number },
  budgetUsd: number,
): number {
  const counted = basis === 'billed' ? spend.actualUsd : spend.actualUsd + spend.reservedUsd;
  if (budgetUsd <= 0) return counted > 0 ? Infinity : 0;
  return (counted / budgetUsd) * 100;
}
