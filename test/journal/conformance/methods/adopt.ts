// The operator's adoption of orphaned rows.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { collectIds, ids, ingestRun, row, rowsOf, type Harness } from '../harness.js';

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

    it("a row changed in its manifest takes the manifest's content once adopted, waiting unsent, nothing booked", async () => {
      await ingestRun(store, rowsOf('a', 'b'));
      const changed = (id: string) =>
        row(id, 9, {
          contentHash: `changed-${id}`,
          request: { model: 'chat-small', messages: [{ role: 'user', content: 'new' }] },
        });
      // Skipped as changed (withheld), then listed again and changed: a conflict each time, the row kept.
      expect((await ingestRun(store, [changed('a'), ...rowsOf('b')], [], ['a'])).conflicts.map((c) => c.id)).toEqual([
        'a',
      ]);
      expect((await ingestRun(store, [changed('b'), changed('a')], [], ['a', 'b'])).conflicts.map((c) => c.id)).toEqual(
        ['b', 'a'],
      );
      expect((await store.get('a'))!.contentHash).toBe('hash-of-a');
      // The operator's `retry a`: adopted, the next ingest takes its new content (and lists it again).
      expect(await store.adopt(['a'])).toEqual(['a']);
      const taken = await ingestRun(store, [changed('a'), ...rowsOf('b')]);
      expect(taken).toMatchObject({ replaced: 1, conflicts: [] });
      expect(await store.get('a')).toMatchObject({ contentHash: 'changed-a', sourceLine: 9, state: 'pending' });
      expect(await store.get('a')).toMatchObject({ request: { messages: [{ role: 'user', content: 'new' }] } });
      expect((await store.listings(['a'])).get('a')?.listing).toBe('listed');
      // The content it held goes into its event log; an invalid row's replacement logs none.
      expect((await store.events('a')).filter((e) => e.event === 'replace')).toMatchObject([
        {
          from: 'pending',
          to: 'pending',
          detail: { by: 'manifest', previous: { contentHash: 'hash-of-a', file: 'manifest.jsonl', line: 1 } },
        },
      ]);
    });
  });
}
