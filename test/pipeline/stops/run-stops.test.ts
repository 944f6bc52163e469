// The stop rules on a hand-driven clock: no sleeps.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { RunEvents } from '../../../src/pipeline/context.js';
import { RunStops } from '../../../src/pipeline/stops/run-stops.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

function setup(options: { start?: number; deadlineAt?: number; graceMs?: number; interruptGraceMs?: number } = {}) {
  const clock = new ManualClock(options.start ?? 1_000);
  const events = new EventEmitter<RunEvents>();
  const log: string[] = [];
  events.on('log', (line) => log.push(line));
  const submitStop = new AbortController();
  const stop = new AbortController();
  const hardStop = new AbortController();
  const stops = new RunStops({
    voice: operatorVoice,
    clock,
    events,
    submitStop,
    stop,
    hardStop,
    ...(options.deadlineAt !== undefined ? { deadlineAt: options.deadlineAt } : {}),
    deadlineGraceMs: options.graceMs ?? 1_000,
    interruptGraceMs: options.interruptGraceMs ?? 10_000,
  });
  return { clock, log, submitStop, stop, hardStop, stops };
}

describe('RunStops: the deadline', () => {
  it('a deadline already reached (0m) stops everything at once, before anything could be sent', () => {
    const t = setup({ start: 5_000, deadlineAt: 5_000 });
    t.stops.armDeadline();
    expect(t.submitStop.signal.aborted).toBe(true);
    expect(t.stop.signal.aborted).toBe(true);
    expect(t.stops.allows()).toBe(false);
    expect(t.stops.reason).toBe('deadline');
    expect(t.log).toEqual([expect.stringMatching(/^deadline reached \(1970-01-01T00:00:05\.000Z\): no new requests/)]);
  });

  it('before the deadline sends are allowed; at it they stop; the grace later cuts what is in flight', async () => {
    const t = setup({ start: 0, deadlineAt: 2_000, graceMs: 1_000 });
    t.stops.armDeadline();
    expect(t.stops.allows()).toBe(true);
    await t.clock.advance(1_999);
    expect(t.stops.allows()).toBe(true);
    await t.clock.advance(1);
    expect(t.submitStop.signal.aborted).toBe(true);
    expect(t.stop.signal.aborted).toBe(true);
    expect(t.hardStop.signal.aborted).toBe(false);
    await t.clock.advance(999);
    expect(t.hardStop.signal.aborted).toBe(false);
    await t.clock.advance(1);
    expect(t.hardStop.signal.aborted).toBe(true);
    expect(t.stops.deadlineSummary(1)).toMatch(
      /^deadline reached \(1970-01-01T00:00:02\.000Z\): nothing was sent after it; 1 submission\(s\) still on the wire were cut after the 1 s grace and are uncertain/,
    );
  });

  it('the clock decides, not the timer: past the deadline a send is refused even before the timer fires', () => {
    // A clock whose timers never fire: an event loop too busy to run them.
    let now = 0;
    const stalled = { now: () => now, sleep: () => new Promise<void>(() => undefined) };
    const submitStop = new AbortController();
    const stops = new RunStops({
      voice: operatorVoice,
      clock: stalled,
      events: new EventEmitter<RunEvents>(),
      submitStop,
      stop: new AbortController(),
      hardStop: new AbortController(),
      deadlineAt: 100,
      deadlineGraceMs: 1_000,
      interruptGraceMs: 1_000,
    });
    stops.armDeadline();
    expect(stops.allows()).toBe(true);
    now = 150;
    expect(stops.allows()).toBe(false);
    expect(submitStop.signal.aborted).toBe(true);
    expect(stops.reason).toBe('deadline');
  });

  it('a grace of 0 cuts at once', async () => {
    const t = setup({ start: 0, deadlineAt: 0, graceMs: 0 });
    t.stops.armDeadline();
    await t.clock.advance(0);
    expect(t.hardStop.signal.aborted).toBe(true);
  });

  it('no deadline: nothing stops', async () => {
    const t = setup({ start: 0 });
    t.stops.armDeadline();
    await t.clock.advance(1e9);
    expect(t.stops.allows()).toBe(true);
    expect(t.stops.deadlineSummary(0)).toBeUndefined();
  });
});

describe('RunStops: other stops', () => {
  it('unreachable: one line, submissions and polls stop, in-flight requests get the grace', async () => {
    const t = setup({ start: 0, graceMs: 500 });
    t.stops.unreachable('gateway unreachable at X');
    t.stops.unreachable('gateway unreachable at X');
    expect(t.log).toEqual(['gateway unreachable at X']);
    expect(t.stops.reason).toBe('unreachable');
    expect(t.stops.message).toBe('gateway unreachable at X');
    expect(t.submitStop.signal.aborted && t.stop.signal.aborted).toBe(true);
    await t.clock.advance(500);
    expect(t.hardStop.signal.aborted).toBe(true);
  });

  it('the first stop names the run; a deadline during an interrupt shortens its grace', async () => {
    const t = setup({ start: 0, deadlineAt: 1_000, graceMs: 200, interruptGraceMs: 10_000 });
    t.stops.armDeadline();
    t.stops.interrupt('SIGTERM');
    expect(t.log[0]).toMatch(/^stopping: no new submissions \(SIGTERM\)/);
    expect(t.stops.message).toBe(
      'interrupted by SIGTERM: nothing new was sent after it; unfinished work is left for the next run',
    );
    await t.clock.advance(1_000);
    expect(t.stops.reason).toBe('interrupted');
    await t.clock.advance(200);
    expect(t.hardStop.signal.aborted).toBe(true);
  });

  it('a forced stop cuts at once', () => {
    const t = setup();
    t.stops.force();
    expect(t.hardStop.signal.aborted).toBe(true);
    expect(t.stops.reason).toBe('interrupted');
  });

  it('dispose ends the pending timers', async () => {
    const t = setup({ start: 0, deadlineAt: 100 });
    t.stops.armDeadline();
    t.stops.dispose();
    await t.clock.advance(1_000);
    expect(t.submitStop.signal.aborted).toBe(false);
    expect(t.clock.pendingSleepers()).toBe(0);
  });
});
