// The deadline with --drain on a hand-driven clock: submissions stop at the deadline (theirs cut after
// the grace), polls and downloads go on until the drain ends, then stop and are cut after the grace.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { RunEvents } from '../../../src/pipeline/context.js';
import { RunStops } from '../../../src/pipeline/stops/run-stops.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

function setup(drainMs: number, graceMs = 1_000) {
  const clock = new ManualClock(0);
  const events = new EventEmitter<RunEvents>();
  const log: string[] = [];
  events.on('log', (line) => log.push(line));
  const c = {
    submitStop: new AbortController(),
    stop: new AbortController(),
    hardStop: new AbortController(),
    submitCut: new AbortController(),
  };
  const stops = new RunStops({
    voice: operatorVoice,
    clock,
    events,
    ...c,
    deadlineAt: 2_000,
    deadlineGraceMs: graceMs,
    drainMs,
    interruptGraceMs: 10_000,
  });
  stops.armDeadline();
  return { clock, log, stops, ...c };
}

describe('RunStops: the deadline with a drain', () => {
  it('at the deadline only submissions stop; polls go on until the drain ends, then everything is cut after the grace', async () => {
    const t = setup(60_000);
    await t.clock.advance(2_000);
    expect(t.submitStop.signal.aborted).toBe(true);
    expect(t.stops.allows()).toBe(false);
    expect(t.stops.reason).toBe('deadline');
    expect(t.stop.signal.aborted).toBe(false); // polls and downloads still start
    expect(t.log).toEqual([
      expect.stringMatching(
        /^deadline reached \(1970-01-01T00:00:02\.000Z\): no new submissions; submissions in flight get 1 s, then are cut; tasks in flight are still polled and downloaded for up to 1m \(--drain\)$/,
      ),
    ]);
    await t.clock.advance(1_000);
    expect(t.submitCut.signal.aborted).toBe(true); // the deadline's bound on submissions in flight stays
    expect(t.hardStop.signal.aborted).toBe(false); // polls and downloads on the wire are not cut
    await t.clock.advance(58_999);
    expect(t.stop.signal.aborted).toBe(false);
    await t.clock.advance(1);
    expect(t.stop.signal.aborted).toBe(true);
    expect(t.log[1]).toBe(
      'drain over (1m after the deadline): no more polls or downloads; requests in flight get 1 s, then are cut',
    );
    await t.clock.advance(999);
    expect(t.hardStop.signal.aborted).toBe(false);
    await t.clock.advance(1);
    expect(t.hardStop.signal.aborted).toBe(true);
    expect(t.stops.deadlineSummary(0)).toMatch(
      /requests still in flight were cut after the 1 s grace; no submission was among them; unfinished work is left/,
    );
  });

  it('a run whose tasks all end within the drain says so, and nothing is left armed once disposed', async () => {
    const t = setup(60_000);
    await t.clock.advance(5_000);
    expect(t.stops.deadlineSummary(0)).toMatch(
      /^deadline reached .*: nothing was sent after it; no request had to be cut; tasks in flight were polled and downloaded until they ended, within --drain; anything unfinished is left for the next run$/,
    );
    expect(t.stops.deadlineSummary(2)).toMatch(
      /: nothing was sent after it; 2 submission\(s\) still on the wire were cut after the 1 s grace and are uncertain/,
    );
    t.stops.dispose();
    expect(t.clock.pendingSleepers()).toBe(0);
  });

  it('a signal during the drain stops polls at once and keeps the deadline as the reason', async () => {
    const t = setup(60_000);
    await t.clock.advance(2_000);
    t.stops.interrupt('SIGTERM');
    expect(t.stop.signal.aborted).toBe(true);
    expect(t.stops.reason).toBe('deadline');
    await t.clock.advance(10_000);
    expect(t.hardStop.signal.aborted && t.submitCut.signal.aborted).toBe(true);
  });

  it('a forced stop cuts submissions too', () => {
    const t = setup(60_000);
    t.stops.force();
    expect(t.submitCut.signal.aborted).toBe(true);
  });

  it('--drain 0 is the deadline as before: polls stop at it', async () => {
    const t = setup(0);
    await t.clock.advance(2_000);
    expect(t.stop.signal.aborted).toBe(true);
    expect(t.log[0]).toMatch(
      /^deadline reached \(1970-01-01T00:00:02\.000Z\): no new requests; requests in flight get 1 s, then are cut$/,
    );
    await t.clock.advance(1_000);
    expect(t.hardStop.signal.aborted && t.submitCut.signal.aborted).toBe(true);
  });
});
