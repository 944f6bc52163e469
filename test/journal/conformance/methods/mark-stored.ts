// The `store` transition for many answered rows at once.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { fourRows, ingest, submit, type Harness } from '../harness.js';

export function markStoredConformance(label: string, harness: Harness): void {
  describe(`markStored: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, fourRows());
    });

    it('markStored moves many rows at once, and none when one of them is not succeeded', async () => {
      await store.applyTransitions([submit('chat'), submit('third'), submit('fourth')]);
      await store.applyTransitions(
        ['chat', 'third'].map((id) => ({ id, event: 'complete' as const, patch: { response: { ok: id } } })),
      );
      await expect(store.markStored(['chat', 'fourth', 'third'], 'r.jsonl', {})).rejects.toMatchObject({
        itemId: 'fourth',
        event: 'store',
      });
      expect((await store.get('chat'))!.state).toBe('succeeded');
      await store.markStored(['third', 'chat'], 'r.jsonl', { batch: 1 });
      expect((await store.list(['downloaded'])).map((i) => [i.id, i.outputPath])).toEqual([
        ['chat', 'r.jsonl'],
        ['third', 'r.jsonl'],
      ]);
      await store.markStored([], 'r.jsonl', {});
    });
  });
}
