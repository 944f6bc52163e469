// The run's retry lane: it hears each row the run ends, waits the row's backoff on the injected clock,
// then sends it back to pending with the guarded `requeue` (or `resubmit`), and ends when nothing is left.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { Change, Item } from '../../../src/journal/index.js';
import { AutoRetries } from '../../../src/pipeline/lanes/auto-retries.js';
import type { RunContext, RunEvents } from '../../../src/pipeline/context.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

function fakeContext() {
  const clock = new ManualClock(0);
  const written: Change[] = [];
  const ctx = {
    clock,
    events: new EventEmitter<RunEvents>(),
    submitStop: new AbortController(),
    stop: new AbortController(),
    commits: {
      write: async (change: Change, item: Item) => {
        written.push(change);
        return { ...item, state: 'pending' };
      },
    },
    voice: operatorVoice,
  } as unknown as RunContext;
  return { ctx, clock, written };
}

const POLICY = {
  retryFailed: 2,
  resubmitUncertainText: true,
  maxAutoResubmits: 3,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
};
const video = (state: Item['state'], extra: Partial<Item> = {}) =>
  ({
    id: 'v',
    kind: 'video',
    state,
    attempts: 1,
    autoResubmits: 0,
    lastError: { message: 'failed' },
    ...extra,
  }) as unknown as Item;

describe('AutoRetries', () => {
  it('requeues a refunded video failure after 1 s, then after 2 s, then no more', async () => {
    const { ctx, clock, written } = fakeContext();
    const retries = new AutoRetries(ctx, POLICY);
    for (const [retry, wait] of [
      [1, 1000],
      [2, 2000],
    ] as const) {
      // The row as the journal holds it: the sends its allowance used so far.
      ctx.events.emit('transition', video('failed', { autoRetries: retry - 1 }), 'running');
      let moved = false;
      const next = retries
        .next(() => false)
        .then((more) => {
          moved = more;
        });
      await clock.waitForSleepers(1);
      await clock.advance(wait - 1);
      expect(written).toHaveLength(retry - 1);
      await clock.advance(1);
      await next;
      expect(moved).toBe(true);
      expect(written[retry - 1]).toMatchObject({
        id: 'v',
        event: 'requeue',
        expect: 'failed',
        detail: { by: 'retry-policy', retry },
        patch: { autoRetries: retry },
      });
    }
    // A third failure: the allowance is spent.
    ctx.events.emit('transition', video('failed', { autoRetries: 2 }), 'running');
    expect(await retries.next(() => false)).toBe(false);
    expect(retries.requeued).toEqual(['v', 'v']);
  });

  it('waits while tasks are still polled, and ends once none is and nothing is scheduled', async () => {
    const { ctx } = fakeContext();
    const retries = new AutoRetries(ctx, POLICY);
    let busy = true;
    let ended: boolean | undefined;
    const next = retries
      .next(() => busy)
      .then((more) => {
        ended = more;
      });
    await Promise.resolve();
    expect(ended).toBeUndefined();
    busy = false;
    retries.nudge();
    await next;
    expect(ended).toBe(false);
  });

  it('stops waiting for polled tasks once the run stops waiting for them', async () => {
    const { ctx } = fakeContext();
    const retries = new AutoRetries(ctx, POLICY);
    const next = retries.next(() => true);
    ctx.stop.abort('deadline');
    expect(await next).toBe(false);
  });

  it('resubmits an uncertain text row (opt-in), never a video one, and stops at once when sending stops', async () => {
    const { ctx, clock, written } = fakeContext();
    const retries = new AutoRetries(ctx, POLICY);
    ctx.events.emit('transition', video('uncertain'), 'submitting');
    ctx.events.emit('transition', video('uncertain', { id: 'c', kind: 'chat' }), 'submitting');
    const next = retries.next(() => false);
    await clock.waitForSleepers(1);
    await clock.advance(1000);
    expect(await next).toBe(true);
    expect(written).toEqual([
      expect.objectContaining({
        id: 'c',
        event: 'resubmit',
        expect: 'uncertain',
        patch: { autoResubmits: 1, reservedUsd: 0 },
      }),
    ]);
    ctx.events.emit('transition', video('failed'), 'running');
    ctx.submitStop.abort('deadline');
    expect(await retries.next(() => true)).toBe(false);
  });

  it('counts what earlier runs used: a row that failed with one send left gets one retry, then no more', async () => {
    const { ctx, clock, written } = fakeContext();
    const retries = new AutoRetries(ctx, POLICY);
    // Sent again once by an earlier run (or another server): this run sends it once more, as retry 2.
    ctx.events.emit('transition', video('failed', { autoRetries: 1 }), 'running');
    const next = retries.next(() => false);
    await clock.waitForSleepers(1);
    await clock.advance(2000);
    expect(await next).toBe(true);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ event: 'requeue', detail: { retry: 2 }, patch: { autoRetries: 2 } });
    ctx.events.emit('transition', video('failed', { autoRetries: 2 }), 'running');
    expect(await retries.next(() => false)).toBe(false);
    expect(written).toHaveLength(1);
  });
});
