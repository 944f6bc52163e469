// A threshold crossed in a run's last moments, after the watch's last tick: the run's `ending` look (the
// journal still open) announces it, and among runners sharing a job exactly one of them does.
import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { createRedactor } from '../../src/gateway/redact.js';
import { RunNotifier } from '../../src/notify/notifier.js';
import { announceEnding } from '../../src/pipeline/runners/job-end.js';
import type { Progress, RunEvents } from '../../src/pipeline/index.js';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { startHook } from '../helpers/webhook-server.js';

const BUDGET_USD = 10;

function zeroCounts(): Record<ItemState, number> {
  return Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
}

function progress(actualUsd: number): Progress {
  return { counts: zeroCounts(), spend: { actualUsd, reservedUsd: 0 }, budgetUsd: BUDGET_USD, pausedUntil: 0 };
}

/** One journal's elections: the first claim of a notice wins. */
function sharedNotices(): { claim: (notice: string) => Promise<boolean> } {
  const claimed = new Set<string>();
  return {
    claim: async (notice) => {
      if (claimed.has(notice)) return false;
      claimed.add(notice);
      return true;
    },
  };
}

async function runnerOfJob(
  url: string,
  notices: ReturnType<typeof sharedNotices> | undefined,
  finalUsd: number,
): Promise<RunNotifier> {
  const events = new EventEmitter<RunEvents>();
  const notifier = new RunNotifier(
    { urls: [url], thresholds: [5], reservedThresholds: [] },
    { job: 'nightly', redact: createRedactor([]), log: () => undefined },
  );
  notifier.attach(events);
  // The watch reads nothing billed while the run goes on: the whole charge lands after its last tick.
  events.emit('started', progress(0), () => ({ actualUsd: 0, reservedUsd: 0 }), notices);
  await announceEnding(events, {
    counts: zeroCounts(),
    spend: { actualUsd: finalUsd, reservedUsd: 0 },
    budgetUsd: BUDGET_USD,
  });
  return notifier;
}

describe("a run's last look at its money", () => {
  test('three runners of one job cross 5 % at their end: one threshold body, sent before the job is left', async () => {
    const hook = await startHook([]);
    const notices = sharedNotices();
    const runners = [];
    for (const finalUsd of [0.6, 0.7, 0.8]) runners.push(await runnerOfJob(hook.url, notices, finalUsd));
    await Promise.all(runners.map((r) => r.finish(undefined)));
    const thresholds = hook.received.map((r) => r.body as { event: string; threshold_pct: number });
    expect(thresholds).toEqual([expect.objectContaining({ event: 'budget-threshold', threshold_pct: 5 })]);
  });

  test('a runner alone announces a crossing at its end too; none when the end is below the threshold', async () => {
    const hook = await startHook([]);
    await (await runnerOfJob(hook.url, undefined, 0.4)).finish(undefined);
    expect(hook.received).toHaveLength(0);
    await (await runnerOfJob(hook.url, undefined, 0.5)).finish(undefined);
    expect(hook.received.map((r) => (r.body as { threshold_pct: number }).threshold_pct)).toEqual([5]);
  });
});
