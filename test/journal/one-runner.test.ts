// What a journal of one runner (SQLite) answers for coordination and notices: this process is the whole
// truth, so each means what the shared one means for a job with one runner.
import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { OneRunnerCoordination, OneRunnerNotices } from '../../src/journal/one-runner.js';

function journal(counts: Partial<Record<ItemState, number>> = {}) {
  const clock = { at: 1000 };
  const all = Object.fromEntries(ITEM_STATES.map((s) => [s, counts[s] ?? 0])) as Record<ItemState, number>;
  return {
    clock,
    now: () => clock.at,
    spend: async () => ({ reservedUsd: 0.5, actualUsd: 0.25 }),
    counts: async () => all,
    drifts: async () => [],
    getJob: async () => ({ budgetUsd: 2 }),
  };
}

describe('one-runner coordination', () => {
  it("spaces an account's sends by the interval, and a 429 pause lasts from when it was given", async () => {
    const j = journal();
    const shared = new OneRunnerCoordination(j);
    expect([
      await shared.takeSendSlot('a', 100),
      await shared.takeSendSlot('a', 100),
      await shared.takeSendSlot('b', 100),
    ]).toEqual([0, 100, 0]);
    j.clock.at += 250;
    expect(await shared.takeSendSlot('a', 100)).toBe(0);
    await shared.pauseAccount('a', 3000);
    await shared.pauseAccount('a', 1000);
    j.clock.at += 500;
    expect([await shared.accountPause('a'), await shared.accountPause('b')]).toEqual([2500, 0]);
  });

  it('runs work of one name one at a time, even when one fails', async () => {
    const shared = new OneRunnerCoordination(journal());
    const order: string[] = [];
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const first = shared.exclusive('results', async () => {
      order.push('first in');
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      entered();
      await held;
      order.push('first out');
      throw new Error('boom');
    });
    const second = shared.exclusive('results', async () => {
      order.push('second');
      return 2;
    });
    await inside;
    expect(order).toEqual(['first in']);
    release();
    await expect(first).rejects.toThrow('boom');
    expect(await second).toBe(2);
    expect(order).toEqual(['first in', 'first out', 'second']);
  });

  it("the job's money is the journal's, in flight while a row is submitting, submitted or running", async () => {
    expect(await new OneRunnerCoordination(journal({ pending: 3, succeeded: 1 })).jobMoney()).toEqual({
      reservedUsd: 0.5,
      actualUsd: 0.25,
      inFlight: false,
      budgetUsd: 2,
      drifts: [],
    });
    expect((await new OneRunnerCoordination(journal({ running: 1 })).jobMoney()).inFlight).toBe(true);
  });

  it('a balance stop and a handover are remembered for this runner', async () => {
    const shared = new OneRunnerCoordination(journal());
    expect(await shared.submissionsStopped()).toBeUndefined();
    await shared.stopSubmissions('balance');
    expect(await shared.submissionsStopped()).toBe('balance');
    await shared.recordHandover('h:/out/results.jsonl', '{"seq":4}');
    expect(await shared.handover('h:/out/results.jsonl')).toBe('{"seq":4}');
  });
});

describe('one-runner notices', () => {
  it('each notice is claimed once per session; the one runner is always the last to end', async () => {
    const notices = new OneRunnerNotices();
    await notices.begin();
    expect([await notices.claim('budget-threshold:50'), await notices.claim('budget-threshold:50')]).toEqual([
      true,
      false,
    ]);
    expect(await notices.end()).toBe(true);
    await notices.begin();
    expect(await notices.claim('budget-threshold:50')).toBe(true);
  });
});
