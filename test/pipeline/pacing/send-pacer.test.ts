// The --rpm gate at the wire: a sliding window over the moments requests went on the wire.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { earliestSend, SendPacer, type PacedSend } from '../../../src/pipeline/pacing/send-pacer.js';

/** A request that reaches the wire the moment it is let go. */
const onWireAtOnce = (paced: PacedSend): PacedSend => {
  paced.onWire();
  return paced;
};

const window = { intervalCap: 3, interval: 1000 };

describe('earliestSend', () => {
  it('lets a request go at once while the window holds fewer than the cap', () => {
    expect(earliestSend([], window, 50)).toBe(50);
    expect(earliestSend([10, 20], window, 50)).toBe(50);
  });

  it('holds a request until the cap-th latest one has left the window', () => {
    expect(earliestSend([10, 20, 30], window, 50)).toBe(1010);
    expect(earliestSend([5, 10, 20, 30], window, 50)).toBe(1010);
    expect(earliestSend([10, 20, 30], window, 1500)).toBe(1500);
  });

  it('takes the times in any order', () => {
    expect(earliestSend([30, 5, 20, 10], window, 50)).toBe(1010);
  });
});

describe('SendPacer', () => {
  it('lets requests go in arrival order, never more than the cap in any interval', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer(window, clock);
    const granted: Array<{ n: number; at: number }> = [];
    const all = Array.from({ length: 8 }, (_, n) =>
      pacer
        .acquire()
        .then(onWireAtOnce)
        .then(() => granted.push({ n, at: clock.now() })),
    );
    await clock.waitForSleepers(1);
    for (let i = 0; i < 10 && granted.length < 8; i++) await clock.advance(500);
    await Promise.all(all);
    expect(granted.map((g) => g.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(granted.map((g) => g.at)).toEqual([0, 0, 0, 1000, 1000, 1000, 2000, 2000]);
    for (let i = 0; i + window.intervalCap < granted.length; i++) {
      expect(granted[i + window.intervalCap]!.at - granted[i]!.at).toBeGreaterThanOrEqual(window.interval);
    }
  });

  it('a request that comes late counts from its own moment, not from a fixed grid', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer(window, clock);
    onWireAtOnce(await pacer.acquire());
    await clock.advance(900);
    onWireAtOnce(await pacer.acquire());
    onWireAtOnce(await pacer.acquire());
    const fourth = pacer
      .acquire()
      .then(onWireAtOnce)
      .then(() => clock.now());
    await clock.waitForSleepers(1);
    await clock.advance(100);
    expect(await fourth).toBe(1000);
    const fifth = pacer
      .acquire()
      .then(onWireAtOnce)
      .then(() => clock.now());
    await clock.waitForSleepers(1);
    await clock.advance(899);
    expect(clock.pendingSleepers()).toBe(1);
    await clock.advance(1);
    expect(await fifth).toBe(1900);
  });

  it('a stop while waiting rejects that request uncounted; the next still gets its turn', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer({ intervalCap: 1, interval: 1000 }, clock);
    onWireAtOnce(await pacer.acquire());
    const stop = new AbortController();
    const stopped = pacer.acquire(stop.signal);
    const next = pacer.acquire().then(() => clock.now());
    await clock.waitForSleepers(1);
    stop.abort('deadline');
    await expect(stopped).rejects.toBe('deadline');
    await clock.waitForSleepers(1);
    await clock.advance(1000);
    expect(await next).toBe(1000);
  });

  it('an already-aborted signal never waits and never counts', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer({ intervalCap: 1, interval: 1000 }, clock);
    await expect(pacer.acquire(AbortSignal.abort('stop'))).rejects.toBe('stop');
    await pacer.acquire();
    expect(clock.now()).toBe(0);
  });

  it('requests late to the wire (cold connections) are counted from when they got there, not from when they were let go', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer(window, clock);
    const late = [await pacer.acquire(), await pacer.acquire()];
    onWireAtOnce(await pacer.acquire());
    await clock.advance(150);
    for (const paced of late) paced.onWire();
    const fourth = pacer
      .acquire()
      .then(onWireAtOnce)
      .then(() => clock.now());
    await clock.waitForSleepers(1);
    await clock.advance(850);
    // The third left at 0, and its second is over at 1000; the other two reached the gateway at 150.
    expect(await fourth).toBe(1000);
    const fifth = pacer
      .acquire()
      .then(onWireAtOnce)
      .then(() => clock.now());
    await clock.waitForSleepers(1);
    await clock.advance(149);
    expect(clock.pendingSleepers()).toBe(1);
    await clock.advance(1);
    expect(await fifth).toBe(1150);
  });

  it('while requests let go are still on their way, the next waits for them, then counts from their wire moment', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer(window, clock);
    const onTheirWay = [await pacer.acquire(), await pacer.acquire(), await pacer.acquire()];
    let granted: number | undefined;
    const fourth = pacer
      .acquire()
      .then(onWireAtOnce)
      .then(() => {
        granted = clock.now();
      });
    await clock.waitForSleepers(1);
    await clock.advance(2500);
    expect(granted).toBeUndefined();
    for (const paced of onTheirWay) paced.onWire();
    await clock.advance(999);
    expect(granted).toBeUndefined();
    await clock.advance(1);
    await fourth;
    expect(granted).toBe(3500);
  });

  it('a request that never reached the wire (refused connection, stop) frees its place at once', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer(window, clock);
    onWireAtOnce(await pacer.acquire());
    onWireAtOnce(await pacer.acquire());
    const refused = await pacer.acquire();
    const fourth = pacer
      .acquire()
      .then(onWireAtOnce)
      .then(() => clock.now());
    await clock.waitForSleepers(1);
    await clock.advance(10);
    refused.done();
    expect(await fourth).toBe(10);
  });

  it('done() after the wire changes nothing: the request still counts', async () => {
    const clock = new ManualClock(0);
    const pacer = new SendPacer({ intervalCap: 1, interval: 1000 }, clock);
    const sent = onWireAtOnce(await pacer.acquire());
    sent.done();
    const next = pacer.acquire().then(() => clock.now());
    await clock.waitForSleepers(1);
    await clock.advance(1000);
    expect(await next).toBe(1000);
  });
});
