// Rows by state, and the money reserved and settled.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { fourRows, ingest, submit, zeroCounts, type Harness } from '../harness.js';

export function countsConformance(label: string, harness: Harness): void {
  describe(`counts and spend: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, fourRows());
    });

    it('counts every state and sums reserved and settled money, rounded to nano-dollars', async () => {
      await store.applyTransitions([submit('chat', 0.1), submit('third', 0.2), submit('video', 0.5)], {
        durability: 'relaxed',
      });
      await store.flush();
      expect(await store.spend()).toEqual({ reservedUsd: 0.8, actualUsd: 0 });
      await store.applyTransitions([
        { id: 'chat', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.07 } },
        { id: 'third', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.2 } },
      ]);
      expect(await store.spend()).toEqual({ reservedUsd: 0.5, actualUsd: 0.27 });
      expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 1, submitting: 1, succeeded: 2 });
    });
  });
}
