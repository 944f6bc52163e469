// The operator's adoption of orphaned rows.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { collectIds, ids, ingestRun, rowsOf, type Harness } from '../harness.js';

export function adoptConformance(label: string, harness: Harness): void {
  describe(`adopt: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it("the operator's adoption: sent as if listed, kept through ingests that do not read it, listed again by one that does", async () => {
      await ingestRun(store, rowsOf('a', 'b'));
      await ingestRun(store, rowsOf('a'));
      expect(await store.adopt(['b', 'a', 'none'])).toEqual(['b']);
      expect(await store.adopt(['b'])).toEqual([]);
      expect(ids(await store.claimPending(10, 0))).toEqual(['a', 'b']);
      expect(await store.orphans(10)).toMatchObject({ total: 0 });
      await ingestRun(store, rowsOf('a'));
      expect((await store.listings(['b'])).get('b')?.listing).toBe('adopted');
      expect(await collectIds(store.iterate({ adopted: true }))).toEqual(['b']);
      await ingestRun(store, rowsOf('a', 'b'));
      expect((await store.listings(['b'])).get('b')?.listing).toBe('listed');
      expect(await collectIds(store.iterate({ adopted: true }))).toEqual([]);
    });
  });
}
