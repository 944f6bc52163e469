// What runners sharing a job agree through the journal, held to what it means for a job of one runner: a stop of
// submissions, sends paced and paused per account, work of one name at a time, the results file's prefix, the money.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, type Harness } from '../harness.js';

export function coordinationConformance(label: string, harness: Harness): void {
  describe(`coordination: ${label}`, () => {
    let store: JournalStore;
    // A database keeps an account's pacing for every job it holds: each test paces an account of its own.
    const account = (): string => `account-${harness.jobName()}`;

    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      await store.membership.acquire();
    });

    it('stopSubmissions: submissionsStopped says why from then on, and stoppedAtBalance that it happened', async () => {
      expect(await store.coordination.submissionsStopped()).toBeUndefined();
      expect(await store.coordination.stoppedAtBalance()).toBe(false);
      await store.coordination.stopSubmissions('balance');
      expect(await store.coordination.submissionsStopped()).toBe('balance');
      expect(await store.coordination.stoppedAtBalance()).toBe(true);
    });

    it("takeSendSlot: an idle account's first send goes at once, the next one interval later", async () => {
      expect(await store.coordination.takeSendSlot(account(), 60_000)).toBe(0);
      const next = await store.coordination.takeSendSlot(account(), 60_000);
      // A database counts on its own clock, which runs on between the two calls.
      expect(next).toBeGreaterThan(59_000);
      expect(next).toBeLessThanOrEqual(60_000);
    });

    it('pauseAccount: accountPause tells how long the account stays paused; an account never paused is open', async () => {
      expect(await store.coordination.accountPause(account())).toBe(0);
      await store.coordination.pauseAccount(account(), 60_000);
      const left = await store.coordination.accountPause(account());
      expect(left).toBeGreaterThan(59_000);
      expect(left).toBeLessThanOrEqual(60_000);
      expect(await store.coordination.accountPause(`${account()}-other`)).toBe(0);
    });

    it('exclusive: work of one name runs one at a time, and returns what the work returns', async () => {
      const seen: string[] = [];
      const work = (name: string) => async () => {
        seen.push(`${name} starts`);
        await store.counts();
        await store.counts();
        seen.push(`${name} ends`);
        return name;
      };
      const results = await Promise.all([
        store.coordination.exclusive('results', work('first')),
        store.coordination.exclusive('results', work('second')),
      ]);
      expect(results).toEqual(['first', 'second']);
      // One at a time, in whichever order the two took the lock (on a database, two connections race for it).
      const [one, other] = seen[0] === 'first starts' ? ['first', 'second'] : ['second', 'first'];
      expect(seen).toEqual([`${one} starts`, `${one} ends`, `${other} starts`, `${other} ends`]);
    });

    it('recordHandover: handover reads back the text recorded under that key, and nothing for another', async () => {
      const text = JSON.stringify({ seq: 12, bytes: 3456, file: { ino: 77, size: 3456, mtimeMs: 1_700_000_000_123 } });
      expect(await store.coordination.handover('/out/results.jsonl')).toBeUndefined();
      await store.coordination.recordHandover('/out/results.jsonl', text);
      expect(await store.coordination.handover('/out/results.jsonl')).toBe(text);
      await store.coordination.recordHandover('/out/results.jsonl', 'the next turn');
      expect(await store.coordination.handover('/out/results.jsonl')).toBe('the next turn');
      expect(await store.coordination.handover('/out/other.jsonl')).toBeUndefined();
    });

    it("jobMoney: the job's reserved and settled money, and whether a row is in flight", async () => {
      await ingest(store, [row('a', 1), row('b', 2)]);
      expect(await store.coordination.jobMoney()).toEqual({
        reservedUsd: 0,
        actualUsd: 0,
        inFlight: false,
        budgetUsd: undefined,
        drifts: [],
      });
      await store.applyTransitions([submit('a', 0.25), submit('b', 0.5)]);
      await store.applyTransitions([{ id: 'b', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.125 } }]);
      expect(await store.coordination.jobMoney()).toEqual({
        reservedUsd: 0.25,
        actualUsd: 0.125,
        inFlight: true,
        budgetUsd: undefined,
        drifts: [],
      });
      await store.applyTransitions([{ id: 'a', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.25 } }]);
      expect(await store.coordination.jobMoney()).toEqual({
        reservedUsd: 0,
        actualUsd: 0.375,
        inFlight: false,
        budgetUsd: undefined,
        drifts: [],
      });
    });

    it("jobMoney: the job's budget as it is now, after another run lowered it", async () => {
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {}, budgetUsd: 100 });
      expect((await store.coordination.jobMoney()).budgetUsd).toBe(100);
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {}, budgetUsd: 3 });
      expect((await store.coordination.jobMoney()).budgetUsd).toBe(3);
    });
  });
}
