// When to SIGKILL a run: pure, from a seeded PRNG, so a failing schedule can be replayed.
import type { Prng } from './prng.js';

export type KillPlan =
  /**
   * At the n-th request the gateway records in this run (only video submissions when `videoSubmission`),
   * before its answer is written: the gateway did the work, the runner never hears of it.
   */
  | { at: 'request'; n: number; videoSubmission?: boolean }
  /** At the first write to the journal's WAL after the run starts. */
  | { at: 'wal-write' }
  /** This long after the process was spawned. */
  | { at: 'time'; ms: number }
  | { at: 'never' };

export interface Baseline {
  /** Spawn to exit of an uninterrupted run of the whole campaign. */
  durationMs: number;
  /** Requests that run made to the gateway. */
  requests: number;
}

/** Submissions (the windows where a kill can duplicate work) come first in a run: kill among them often. */
const REQUEST_WINDOW = 12;

/** The next run's kill, given how many runs were killed so far. */
export function planKill(killsSoFar: number, maxKills: number, prng: Prng, baseline: Baseline): KillPlan {
  if (killsSoFar >= maxKills) return { at: 'never' };
  if (killsSoFar === 0) return { at: 'wal-write' };
  if (killsSoFar === 1) return { at: 'request', n: 1, videoSubmission: true };
  if (killsSoFar === 2) return { at: 'request', n: 1 };
  const draw = prng.next();
  if (draw < 0.5) return { at: 'time', ms: Math.round(prng.between(0, baseline.durationMs)) };
  if (draw < 0.75) return { at: 'request', n: prng.int(1, REQUEST_WINDOW) };
  // Polls and downloads too: anywhere in a whole run's requests.
  return { at: 'request', n: prng.int(1, Math.max(1, baseline.requests)) };
}

export function describePlan(plan: KillPlan): string {
  switch (plan.at) {
    case 'request':
      return `kill at ${plan.videoSubmission ? 'video submission' : 'request'} #${plan.n}`;
    case 'wal-write':
      return 'kill at the first WAL write';
    case 'time':
      return `kill at ${plan.ms} ms`;
    case 'never':
      return 'no kill';
  }
}
