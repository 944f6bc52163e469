import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/core/clock.js';

describe('ManualClock', () => {
  it('tick moves time at once and wakes every sleeper due, in wake order, after the caller', async () => {
    const clock = new ManualClock(0);
    const woke: string[] = [];
    void clock.sleep(200).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(100).then(() => woke.push(`a@${clock.now()}`));
    void clock.sleep(900).then(() => woke.push('late'));
    clock.tick(250);
    expect(clock.now()).toBe(250);
    expect(woke).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(woke).toEqual(['a@250', 'b@250']);
    expect(clock.pendingSleepers()).toBe(1);
  });

  it('wakes sleepers only when their time comes, earliest first', async () => {
    const clock = new ManualClock(1000);
    const woke: string[] = [];
    void clock.sleep(300).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(100).then(() => woke.push(`a@${clock.now()}`));
    void clock.sleep(500).then(() => woke.push(`c@${clock.now()}`));
    expect(clock.pendingSleepers()).toBe(3);
    await clock.advance(299);
    expect(woke).toEqual(['a@1100']);
    await clock.advance(1);
    expect(woke).toEqual(['a@1100', 'b@1300']);
    expect(clock.now()).toBe(1300);
    expect(clock.pendingSleepers()).toBe(1);
  });

  it('lets a woken sleeper sleep again within the same advance', async () => {
    const clock = new ManualClock();
    const times: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(100);
        times.push(clock.now());
      }
    })();
    await clock.advance(1000);
    expect(times).toEqual([100, 200, 300]);
    expect(clock.now()).toBe(1000);
  });

  it('rejects an aborted sleep with the reason and forgets it', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(1000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    expect(clock.pendingSleepers()).toBe(0);
  });

  it('waitForSleepers resolves once something sleeps', async () => {
    const clock = new ManualClock();
    const waiting = clock.waitForSleepers(1);
    void clock.sleep(10);
    await waiting;
    expect(clock.pendingSleepers()).toBe(1);
  });
});

describe('systemClock', () => {
  it('rejects with the signal reason when aborted', async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(sleeping).rejects.toThrow('cancelled');
    await expect(systemClock.sleep(1, controller.signal)).rejects.toThrow('cancelled');
  });
});
