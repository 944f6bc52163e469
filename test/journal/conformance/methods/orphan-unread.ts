// An ingest that read the whole of the job orphans the rows it did not read (src/core/orphans.ts).
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { Change, JournalStore } from '../../../../src/journal/index.js';
import { collectIds, ids, ingestRun, row, rowsOf, type Harness } from '../harness.js';

export function orphanUnreadConformance(label: string, harness: Harness): void {
  describe(`IngestWriter.orphanUnread: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('an ingest orphans the rows it did not read: claims and deferred releases skip them; an ingest that reads them lists them again', async () => {
      await ingestRun(store, rowsOf('a', 'b', 'c', 'd'));
      await store.applyTransitions([{ id: 'c', event: 'defer', detail: { reason: 'budget' } } satisfies Change]);
      expect(await store.orphans(10)).toEqual({ total: 0, counts: {}, rows: [] });

      await ingestRun(store, rowsOf('a', 'b'));
      expect(await store.orphans(10)).toEqual({
        total: 2,
        counts: { pending: 1, deferred: 1 },
        rows: [
          { id: 'c', listing: 'orphaned', state: 'deferred', attempts: 0 },
          { id: 'd', listing: 'orphaned', state: 'pending', attempts: 0 },
        ],
      });
      expect(await store.orphans(1)).toMatchObject({ total: 2, rows: [{ id: 'c' }] });
      expect(ids(await store.claimPending(10, 0))).toEqual(['a', 'b']);
      expect(await collectIds(store.iterate({ states: ['deferred'], notOrphaned: true }))).toEqual([]);
      expect(await collectIds(store.iterate({ states: ['deferred'] }))).toEqual(['c']);
      expect(await store.listings(['a', 'c', 'none'])).toEqual(
        new Map([
          ['a', { id: 'a', listing: 'listed', state: 'pending', attempts: 0 }],
          ['c', { id: 'c', listing: 'orphaned', state: 'deferred', attempts: 0 }],
        ]),
      );

      await ingestRun(store, rowsOf('d', 'c', 'e'));
      expect(await store.orphans(10)).toMatchObject({
        total: 2,
        counts: { pending: 2 },
        rows: [{ id: 'a' }, { id: 'b' }],
      });
      expect(ids(await store.claimPending(10, 0))).toEqual(['d', 'e']);
      expect(await collectIds(store.iterate({ states: ['deferred'], notOrphaned: true }))).toEqual(['c']);
    });

    it('rows read in any order, or twice, are listed; only the ones not read are orphaned', async () => {
      await ingestRun(store, rowsOf('a', 'b', 'c', 'd', 'e', 'f', 'g'));
      await ingestRun(store, [row('f', 1), row('a', 2), row('c', 3), row('b', 4), row('a', 5), row('g', 6)]);
      expect((await store.orphans(10)).rows.map((r) => r.id)).toEqual(['d', 'e']);
      await ingestRun(store, [row('e', 1), row('d', 2)]);
      expect((await store.orphans(10)).rows.map((r) => r.id)).toEqual(['a', 'b', 'c', 'f', 'g']);
    });

    it('a changed row skipped (--skip-changed) is judged a conflict and withheld: its row kept as it was, orphaned, never claimed; read unchanged again, listed', async () => {
      await ingestRun(store, rowsOf('a', 'b', 'c'));
      const before = await store.get('b');
      const summary = await ingestRun(
        store,
        [row('a', 1), row('b', 2, { contentHash: 'hash-of-b-changed' }), row('c', 3)],
        [],
        ['b'],
      );
      expect(summary.conflicts).toEqual([
        { id: 'b', file: 'manifest.jsonl', line: 2, journalFile: 'manifest.jsonl', journalLine: 2 },
      ]);
      expect(await store.get('b')).toEqual(before);
      expect((await store.listings(['a', 'b'])).get('b')).toMatchObject({ listing: 'orphaned', state: 'pending' });
      expect(ids(await store.claimPending(10, 0))).toEqual(['a', 'c']);
      await ingestRun(store, rowsOf('a', 'b', 'c'));
      expect((await store.listings(['b'])).get('b')?.listing).toBe('listed');
    });
  });
}
