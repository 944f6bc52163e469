// Run snapshots for the live view's pure tests: a mid-run mixed campaign, changed per case.
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import type { RunSnapshot } from '../../src/core/run-snapshot.js';

export const T0 = Date.UTC(2026, 10, 24, 1, 0, 0);

export function counts(partial: Partial<Record<ItemState, number>> = {}): Record<ItemState, number> {
  return { ...(Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>), ...partial };
}

type Overrides = Partial<Omit<RunSnapshot, 'lanes' | 'recent' | 'tasks' | 'money'>> & {
  lanes?: Partial<RunSnapshot['lanes']>;
  recent?: Partial<RunSnapshot['recent']>;
  tasks?: Partial<RunSnapshot['tasks']>;
  money?: Partial<RunSnapshot['money']>;
};

/** 2,300 rows, 12 minutes in: 612 finished, 156 video tasks in flight, under a $60 budget. */
export function snapshot(over: Overrides = {}): RunSnapshot {
  const c =
    over.counts ??
    counts({
      pending: 1_524,
      submitting: 8,
      submitted: 40,
      running: 116,
      succeeded: 12,
      downloaded: 590,
      failed: 6,
      rejected: 4,
    });
  const base: RunSnapshot = {
    type: 'snapshot',
    version: 1,
    job: 'campaign',
    phase: 'submitting',
    started_at: T0,
    now: T0 + 12 * 60_000 + 4_000,
    total: Object.values(c).reduce((a, b) => a + b, 0),
    counts: c,
    lanes: {
      submit: { queued: c.pending, in_flight: c.submitting, done: 768, retries: 41, waiting_for_budget: false },
      poll: { tasks: c.submitted + c.running, polls: 3_210 },
      download: { in_flight: 2, queued: 1, done: 98, failed: 0 },
    },
    recent: { window_s: 300, finished: 260, sent: 305 },
    tasks: {
      to_send: 400,
      in_flight: 156,
      youngest_age_s: 4,
      oldest_age_s: 432,
      durations: { count: 98, p50_s: 240, p90_s: 370, max_s: 455 },
    },
    money: {
      actual_usd: 18.4,
      reserved_usd: 9.1,
      budget_usd: 60,
      by_kind: {
        text: { estimate_usd: 2, settled_estimate_usd: 1, settled_actual_usd: 0.5 },
        video: { estimate_usd: 50, settled_estimate_usd: 19, settled_actual_usd: 17.9 },
      },
    },
    paused_until: null,
    errors: [
      {
        cause: 'retried 429 rate_limit_exceeded',
        count: 41,
        last_message: 'Rate limit exceeded, retry after 12s',
        last_at: T0 + 11 * 60_000,
      },
      {
        cause: 'task failed Simulated upstream failure',
        count: 6,
        last_message: 'Simulated upstream failure; the reserved amount is refunded',
        last_at: T0 + 9 * 60_000,
      },
    ],
  };
  return {
    ...base,
    ...over,
    counts: c,
    total: over.total ?? base.total,
    lanes: { ...base.lanes, ...over.lanes },
    recent: { ...base.recent, ...over.recent },
    tasks: { ...base.tasks, ...over.tasks },
    money: { ...base.money, ...over.money },
  };
}
