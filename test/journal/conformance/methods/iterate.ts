// Items in manifest order, in pages, filtered.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { collect, fourRows, ingest, submit, type Harness } from '../harness.js';

export function iterateConformance(label: string, harness: Harness): void {
  describe(`iterate: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, fourRows());
    });

    it('iterate filters by state and kind, in order', async () => {
      await store.applyTransitions([submit('third')]);
      expect((await collect(store.iterate({ states: ['pending'] }, 1))).map((i) => i.id)).toEqual([
        'chat',
        'video',
        'fourth',
      ]);
      expect((await collect(store.iterate({ kinds: ['video'] }))).map((i) => i.id)).toEqual(['video']);
      expect((await collect(store.iterate({ states: ['pending'], kinds: ['chat'] }, 2))).map((i) => i.id)).toEqual([
        'chat',
        'fourth',
      ]);
    });
  });
}
