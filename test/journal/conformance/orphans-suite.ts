// The orphaned rows (src/core/orphans.ts) held to ONE set of expectations on every adapter: the ingest's
// statement, claims and releases that skip them, the summary, the operator's adoption and removal.
import { ManualClock } from '../../../src/core/clock.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type {
  Change,
  IngestEntry,
  IngestSummary,
  Item,
  JournalStore,
  ManifestPrint,
} from '../../../src/journal/index.js';
import { row, type Harness, type UseHarness } from './harness.js';

/** Ingests as a run does: the whole of its manifests, then the rows it did not read orphaned, then the records. */
async function ingestRun(
  store: JournalStore,
  entries: readonly IngestEntry[],
  prints: readonly ManifestPrint[] = [],
  withheld?: readonly string[],
): Promise<IngestSummary> {
  const writer = await store.beginIngest();
  for (let i = 0; i < entries.length; i += 64) await writer.add(entries.slice(i, i + 64));
  if (writer.settle) await writer.settle();
  await writer.orphanUnread(withheld);
  await writer.recordManifests(prints);
  return writer.commit();
}

const rows = (...ids: string[]) => ids.map((id, i) => row(id, i + 1));
const ids = (items: readonly Item[]) => items.map((item) => item.id);

async function collect(items: AsyncIterable<Item>): Promise<string[]> {
  const all: string[] = [];
  for await (const item of items) all.push(item.id);
  return all;
}

export function orphansConformance(label: string, useHarness: UseHarness): void {
  describe(`journal conformance, orphaned rows: ${label}`, () => {
    const harness: Harness = useHarness();
    let store: JournalStore;

    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('an ingest orphans the rows it did not read: claims and deferred releases skip them; an ingest that reads them lists them again', async () => {
      await ingestRun(store, rows('a', 'b', 'c', 'd'));
      await store.applyTransitions([{ id: 'c', event: 'defer', detail: { reason: 'budget' } } satisfies Change]);
      expect(await store.orphans(10)).toEqual({ total: 0, counts: {}, rows: [] });

      await ingestRun(store, rows('a', 'b'));
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
      expect(await collect(store.iterate({ states: ['deferred'], notOrphaned: true }))).toEqual([]);
      expect(await collect(store.iterate({ states: ['deferred'] }))).toEqual(['c']);
      expect(await store.listings(['a', 'c', 'none'])).toEqual(
        new Map([
          ['a', { id: 'a', listing: 'listed', state: 'pending', attempts: 0 }],
          ['c', { id: 'c', listing: 'orphaned', state: 'deferred', attempts: 0 }],
        ]),
      );

      await ingestRun(store, rows('d', 'c', 'e'));
      expect(await store.orphans(10)).toMatchObject({
        total: 2,
        counts: { pending: 2 },
        rows: [{ id: 'a' }, { id: 'b' }],
      });
      expect(ids(await store.claimPending(10, 0))).toEqual(['d', 'e']);
      expect(await collect(store.iterate({ states: ['deferred'], notOrphaned: true }))).toEqual(['c']);
    });

    it("the pricing check's model groups leave orphaned rows out (a run does not send them); an adopted row counts", async () => {
      await ingestRun(store, [row('a', 1), row('b', 2, { model: 'chat-large' }), row('c', 3, { model: 'chat-gone' })]);
      await ingestRun(store, [row('a', 1)]);
      expect((await store.modelGroups(['pending', 'deferred'])).map((group) => group.model)).toEqual(['chat-small']);
      await store.adopt(['c']);
      expect((await store.modelGroups(['pending', 'deferred'])).map((group) => group.model)).toEqual([
        'chat-small',
        'chat-gone',
      ]);
    });

    it('rows read in any order, or twice, are listed; only the ones not read are orphaned', async () => {
      await ingestRun(store, rows('a', 'b', 'c', 'd', 'e', 'f', 'g'));
      await ingestRun(store, [row('f', 1), row('a', 2), row('c', 3), row('b', 4), row('a', 5), row('g', 6)]);
      expect((await store.orphans(10)).rows.map((r) => r.id)).toEqual(['d', 'e']);
      await ingestRun(store, [row('e', 1), row('d', 2)]);
      expect((await store.orphans(10)).rows.map((r) => r.id)).toEqual(['a', 'b', 'c', 'f', 'g']);
    });

    it('a row sent is still orphaned when no manifest lists it, but only rows that wait are summed', async () => {
      await ingestRun(store, rows('sent', 'done', 'waits'));
      await store.applyTransitions([{ id: 'sent', event: 'submit', patch: { attempts: 1, reservedUsd: 0.5 } }]);
      await ingestRun(store, rows('done'));
      expect(await store.orphans(10)).toEqual({
        total: 1,
        counts: { pending: 1 },
        rows: [{ id: 'waits', listing: 'orphaned', state: 'pending', attempts: 0 }],
      });
      expect((await store.listings(['sent'])).get('sent')).toMatchObject({
        listing: 'orphaned',
        state: 'submitting',
        attempts: 1,
      });
    });

    it("the operator's adoption: sent as if listed, kept through ingests that do not read it, listed again by one that does", async () => {
      await ingestRun(store, rows('a', 'b'));
      await ingestRun(store, rows('a'));
      expect(await store.adopt(['b', 'a', 'none'])).toEqual(['b']);
      expect(await store.adopt(['b'])).toEqual([]);
      expect(ids(await store.claimPending(10, 0))).toEqual(['a', 'b']);
      expect(await store.orphans(10)).toMatchObject({ total: 0 });
      await ingestRun(store, rows('a'));
      expect((await store.listings(['b'])).get('b')?.listing).toBe('adopted');
      expect(await collect(store.iterate({ adopted: true }))).toEqual(['b']);
      await ingestRun(store, rows('a', 'b'));
      expect((await store.listings(['b'])).get('b')?.listing).toBe('listed');
      expect(await collect(store.iterate({ adopted: true }))).toEqual([]);
    });

    it('forget removes orphaned rows never sent with their events, all or none; a listed or a sent row is refused', async () => {
      await ingestRun(store, rows('a', 'b', 'c'), [{ path: '/m/a.jsonl', bytes: 10, sha256: 'f00d', rows: 3 }]);
      await store.applyTransitions([{ id: 'b', event: 'defer', detail: { reason: 'budget' } }]);
      await store.applyTransitions([{ id: 'c', event: 'submit', patch: { attempts: 1, reservedUsd: 0.01 } }]);
      await store.applyTransitions([{ id: 'c', event: 'retry', patch: { reservedUsd: 0 } }]);
      await ingestRun(store, rows('a'), [{ path: '/m/a.jsonl', bytes: 9, sha256: 'beef', rows: 1 }]);

      const sent = await store.forget(['b', 'c']);
      expect(sent).toEqual({
        ok: false,
        refusal: expect.stringContaining("item 'c' was sent (pending, 1 attempt(s))"),
      });
      expect((await store.get('b'))?.state).toBe('deferred');
      expect(await store.forget(['a'])).toEqual({
        ok: false,
        refusal: expect.stringContaining("item 'a' is in the job's manifests"),
      });
      expect(await store.forget(['none'])).toEqual({ ok: false, refusal: "no item 'none'" });

      expect(await store.forget(['b', 'b'])).toEqual({ ok: true, forgotten: ['b'] });
      expect(await store.get('b')).toBeUndefined();
      expect(await store.events('b')).toEqual([]);
      expect((await store.events('c')).length).toBeGreaterThan(0);
      // A manifest read whole before may hold the removed id: it must be read again.
      expect(await store.manifestRecords()).toEqual(new Map());
      expect(await store.orphans(10)).toMatchObject({ total: 1, rows: [{ id: 'c' }] });
      await ingestRun(store, rows('a', 'b'));
      expect((await store.get('b'))?.state).toBe('pending');
    });

    it('a changed row skipped (--skip-changed) is judged a conflict and withheld: its row kept as it was, orphaned, never claimed; read unchanged again, listed', async () => {
      await ingestRun(store, rows('a', 'b', 'c'));
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
      await ingestRun(store, rows('a', 'b', 'c'));
      expect((await store.listings(['b'])).get('b')?.listing).toBe('listed');
    });

    it("the manifests' records are the last ingest's: those it did not read go", async () => {
      await ingestRun(store, rows('a'), [
        { path: '/m/a.jsonl', bytes: 1, sha256: 'a', rows: 1 },
        { path: '/m/b.jsonl', bytes: 2, sha256: 'b', rows: 0 },
      ]);
      expect([...(await store.manifestRecords()).keys()].sort()).toEqual(['/m/a.jsonl', '/m/b.jsonl']);
      await ingestRun(store, rows('a'), [{ path: '/m/a.jsonl', bytes: 1, sha256: 'a', rows: 1 }]);
      expect(await store.manifestRecords()).toEqual(new Map([['/m/a.jsonl', { bytes: 1, sha256: 'a', rows: 1 }]]));
      expect(await store.manifestRecords(['/m/b.jsonl'])).toEqual(new Map());
    });
  });
}
