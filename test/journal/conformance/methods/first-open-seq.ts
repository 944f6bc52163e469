// The first row whose results line may still appear or change.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { answered, ingest, resultsRows, submit, type Harness } from '../harness.js';

export function firstOpenSeqConformance(label: string, harness: Harness): void {
  describe(`firstOpenSeq: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, resultsRows());
    });

    it('firstOpenSeq: the first row whose line may still appear; a succeeded video still waits for its file', async () => {
      const seqOf = async (id: string) => (await store.get(id))!.seq;
      expect(await store.firstOpenSeq()).toBe(await seqOf('c1'));
      for (const id of ['c1', 'c2', 'c3', 'c4', 'c5', 'c7']) await store.applyTransitions(answered(id, 'y'));
      expect(await store.firstOpenSeq()).toBe(await seqOf('v6'));
      await store.applyTransitions([
        submit('v6'),
        { id: 'v6', event: 'accept', patch: { taskId: 't' } },
        { id: 'v6', event: 'finish' },
      ]);
      expect(await store.firstOpenSeq()).toBe(await seqOf('v6'));
      await store.applyTransitions([{ id: 'v6', event: 'store' }]);
      expect(await store.firstOpenSeq()).toBeUndefined();
    });
  });
}
