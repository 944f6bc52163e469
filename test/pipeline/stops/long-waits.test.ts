// Waits longer than one Node timer takes (2^31-1 ms, about 24.8 days; a longer delay fires after 1 ms):
// the system clock chains timers, and a 25-day deadline neither fires early nor late.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, MAX_TIMER_MS, systemClock } from '../../../src/core/clock.js';
import type { RunEvents } from '../../../src/pipeline/context.js';
import { RunStops } from '../../../src/pipeline/stops/run-stops.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

const DAY_MS = 86_400_000;

describe('systemClock.sleep past one timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // vitest's fake timers fire a delay over 2^31-1 ms after 1 ms, as Node's own do.
  it('25 days: not a moment early, and at 25 days', async () => {
    vi.useFakeTimers();
    let woke = false;
    void systemClock.sleep(25 * DAY_MS).then(() => {
      woke = true;
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(25 * DAY_MS - MAX_TIMER_MS - 1_001);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toBe(true);
  });

  it('an abort in the second timer of the chain rejects with its reason; Infinity never wakes', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60 * DAY_MS, controller.signal);
    let forever = false;
    void systemClock.sleep(Infinity).then(() => {
      forever = true;
    });
    await vi.advanceTimersByTimeAsync(30 * DAY_MS);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    await vi.advanceTimersByTimeAsync(400 * DAY_MS);
    expect(forever).toBe(false);
    expect(vi.getTimerCount()).toBe(1); // the Infinity chain's next link only
  });
});

describe('RunStops: a 25-day deadline on the injected clock', () => {
  it('allows sends until the deadline, then stops them', async () => {
    const clock = new ManualClock(1_000);
    const submitStop = new AbortController();
    const stops = new RunStops({
      voice: operatorVoice,
      clock,
      events: new EventEmitter<RunEvents>(),
      submitStop,
      stop: new AbortController(),
      hardStop: new AbortController(),
      deadlineAt: 1_000 + 25 * DAY_MS,
      deadlineGraceMs: 1_000,
      interruptGraceMs: 1_000,
    });
    stops.armDeadline();
    await clock.advance(MAX_TIMER_MS + 1);
    expect(stops.allows()).toBe(true);
    await clock.advance(25 * DAY_MS - MAX_TIMER_MS - 2);
    expect(stops.allows()).toBe(true);
    expect(submitStop.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(submitStop.signal.aborted).toBe(true);
    expect(stops.reason).toBe('deadline');
    stops.dispose();
  });
});
