// The poller on a hand-driven clock: tasks added together are first polled spread over the interval,
// and --rpm / --poll-rpm pace polls (every request of the account counts against its limit).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { Item } from '../../../src/journal/index.js';
import type { RunContext, RunEvents } from '../../../src/pipeline/context.js';
import { Poller } from '../../../src/pipeline/lanes/poller.js';
import { requestPacers } from '../../../src/pipeline/pacing/request-pacers.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

const INTERVAL_MS = 5_000;
const TASKS = 60;

/** A low-discrepancy sequence in [0, 1): deterministic, yet as even as a fair random draw hopes to be. */
function evenRandom(): () => number {
  let i = 0;
  return () => (++i * 0.6180339887) % 1;
}

function setup(settings: { rpm?: number; pollRpm?: number } = {}) {
  const clock = new ManualClock(0);
  const polls: Array<{ at: number; taskId: string }> = [];
  const items = new Map<string, Item>();
  const ctx = {
    clock,
    random: evenRandom(),
    events: new EventEmitter<RunEvents>(),
    settings: { pollIntervalMs: INTERVAL_MS, pollConcurrency: 64, ...settings },
    stop: new AbortController(),
    submitStop: new AbortController(),
    hardStop: new AbortController(),
    pacers: requestPacers(settings, undefined, 'acct', clock),
    gateway: {
      getTask: async (taskId: string) => {
        polls.push({ at: clock.now(), taskId });
        return { taskId, phase: 'pending', rawStatus: 'QUEUED' };
      },
    },
    journal: { get: async (id: string) => items.get(id) },
    laneFailed: (err: unknown) => {
      throw err;
    },
    voice: operatorVoice,
  } as unknown as RunContext;
  const poller = new Poller(ctx, () => undefined);
  for (let n = 0; n < TASKS; n++) {
    const item = { id: `row${n}`, taskId: `task${n}`, taskIds: null, state: 'submitted' } as unknown as Item;
    items.set(item.id, item);
    poller.add(item);
  }
  const running = poller.run();
  return { clock, polls, ctx, running };
}

async function runFor(t: ReturnType<typeof setup>, ms: number): Promise<void> {
  for (let at = 0; at < ms; at += 100) await t.clock.advance(100);
  t.ctx.stop.abort('test over');
  await t.clock.advance(0);
  await t.running;
}

describe('Poller: polls spread and paced', () => {
  it('60 tasks added at once are first polled spread over the interval, not in one burst at its end', async () => {
    const t = setup();
    await runFor(t, INTERVAL_MS);
    const first = new Map<string, number>();
    for (const p of t.polls) if (!first.has(p.taskId)) first.set(p.taskId, p.at);
    expect(first.size).toBe(TASKS); // every task seen within one interval
    const times = [...first.values()];
    expect(Math.max(...times)).toBeLessThanOrEqual(INTERVAL_MS);
    expect(Math.min(...times)).toBeGreaterThan(0); // never polled the moment it was added
    // No tenth of the interval holds more than a sixth of the tasks (evenly spread: about 7 each).
    for (let from = 0; from < INTERVAL_MS; from += 100) {
      const inWindow = times.filter((at) => at >= from && at < from + INTERVAL_MS / 10).length;
      expect(inWindow, `first polls in [${from}, ${from + INTERVAL_MS / 10})`).toBeLessThanOrEqual(TASKS / 6);
    }
  });

  it('--rpm 120 paces polls at its share (60/min) however many tasks wait: no minute holds more', async () => {
    const t = setup({ rpm: 120 });
    await runFor(t, 120_000);
    const times = t.polls.map((p) => p.at);
    expect(times.length).toBeGreaterThan(100); // paced, not stalled
    for (const from of times)
      expect(times.filter((at) => at >= from && at < from + 60_000).length).toBeLessThanOrEqual(60);
  });

  it('--poll-rpm caps polls on its own, without --rpm', async () => {
    const t = setup({ pollRpm: 30 });
    await runFor(t, 60_000);
    expect(t.polls.length).toBeGreaterThan(20);
    expect(t.polls.length).toBeLessThanOrEqual(30);
  });
});
