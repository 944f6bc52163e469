// The budget guard of a write (src/journal/store.ts): a batch that raises a reservation must leave the job's
// settled + reserved money within its budget, or nothing of it is written.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { BudgetExceededError, type JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, thrown, type Harness } from '../harness.js';

export function budgetGuardConformance(label: string, harness: Harness): void {
  describe(`the budget guard: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {}, budgetUsd: 1 });
      await ingest(store, [row('a', 1), row('b', 2), row('c', 3)]);
      await store.applyTransitions([submit('a', 0.5)]);
    });

    it('refuses a reservation past the budget, the whole batch, whether the writer read the rows or not', async () => {
      for (const batch of [
        [submit('c', 0.25), submit('b', 0.5)],
        [
          { ...submit('c', 0.25), expect: 'pending' as const },
          { ...submit('b', 0.5), expect: 'pending' as const },
        ],
      ]) {
        const refused = await thrown(store.applyTransitions(batch));
        expect(refused).toBeInstanceOf(BudgetExceededError);
        expect(refused).toMatchObject({ itemId: 'c', budgetUsd: 1, heldUsd: 0.5, askedUsd: 0.75 });
      }
      expect((await store.list(['pending'])).map((item) => item.id)).toEqual(['b', 'c']);
      expect(await store.events('c')).toEqual([]);
      expect(await store.spend()).toEqual({ reservedUsd: 0.5, actualUsd: 0 });
      await store.applyTransitions([submit('b', 0.5)]);
      expect(await store.spend()).toEqual({ reservedUsd: 1, actualUsd: 0 });
    });

    it('never refuses a write that raises no reservation, even with the job past a budget lowered since', async () => {
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {}, budgetUsd: 0.25 });
      await store.applyTransitions([
        { id: 'a', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.75, response: { ok: true } } },
      ]);
      await store.annotate('a', { gatewayChargeUsd: 0.75 }, 'charge');
      await store.markStored(['a'], 'r.jsonl', {});
      expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0.75 });
      expect(await thrown(store.applyTransitions([submit('b', 0.01)]))).toBeInstanceOf(BudgetExceededError);
    });
  });
}
