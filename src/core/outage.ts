// Pure: how long a journal out of reach (a database restarting, its sessions ended, a disk full for a
// moment) is waited for, and how often it is tried meanwhile, before the run gives up and stops.
import { backoffDelay, type BackoffPolicy } from './retry.js';
import { positiveKnob } from './test-knob.js';

/**
 * How long a journal may stay out of reach before the run stops (the `GBATCH_JOURNAL_OUTAGE_MS` knob shortens it in
 * tests).
 */
export const DEFAULT_OUTAGE_MS = 30_000;

/** How long an outage is waited out. */
export function outageBoundMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, 'GBATCH_JOURNAL_OUTAGE_MS', DEFAULT_OUTAGE_MS);
}

const POLICY: BackoffPolicy = { baseMs: 100, maxMs: 2000, maxAttempts: Number.POSITIVE_INFINITY };
const MIN_WAIT_MS = 25;

/**
 * The wait before trying again `elapsedMs` into an outage, after `attempt` failed tries (1-based);
 * undefined once the bound is spent: the caller gives up with the error it has.
 */
export function outageRetryDelay(
  attempt: number,
  elapsedMs: number,
  boundMs: number,
  random: () => number,
): number | undefined {
  const left = boundMs - elapsedMs;
  if (left <= 0) return undefined;
  return Math.min(left, Math.max(MIN_WAIT_MS, backoffDelay(attempt, POLICY, random)));
}
