// An ingest pass (IngestWriter): rows written and judged against what their ids hold, all or none.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { collect, ingest, invalidRow, row, zeroCounts, type Harness } from '../harness.js';

export function beginIngestConformance(label: string, harness: Harness): void {
  describe(`beginIngest: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    it('inserts rows in manifest order and reads every field back as written', async () => {
      const rows = [row('b', 1), row('a', 2, { kind: 'video', hasReferenceVideo: true }), invalidRow('c', 3)];
      expect(await ingest(store, rows)).toEqual({ inserted: 3, unchanged: 0, replaced: 0, conflicts: [] });
      const listed = await store.list(['pending', 'invalid']);
      expect(listed.map((i) => i.id)).toEqual(['b', 'a', 'c']);
      expect(listed[0]!.seq).toBeLessThan(listed[1]!.seq);
      const b = (await store.get('b'))!;
      expect(b).toMatchObject({
        id: 'b',
        kind: 'chat',
        model: 'chat-small',
        request: rows[0]!.request,
        contentHash: 'hash-of-b',
        sourceFile: 'manifest.jsonl',
        sourceLine: 1,
        state: 'pending',
        attempts: 0,
        autoResubmits: 0,
        taskId: null,
        resolution: null,
        hasReferenceVideo: false,
        estimateUsd: 0.01,
        reservedUsd: 0,
        priceSnapshot: null,
        actualUsd: null,
        lastError: null,
        unmetered: false,
        updatedAt: clock.now(),
      });
      expect((await store.get('a'))!).toMatchObject({
        kind: 'video',
        resolution: '720p',
        hasReferenceVideo: true,
        estimateUsd: 0.5,
      });
      expect((await store.get('c'))!).toMatchObject({
        kind: 'invalid',
        model: '',
        request: {},
        state: 'invalid',
        lastError: { message: 'row 3: prompt is required' },
      });
      expect(await store.get('nope')).toBeUndefined();
      expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 2, invalid: 1 });
    });

    it("committedTotals: undefined before the commit; after it, when known, the job's counts and spend", async () => {
      const writer = await store.beginIngest();
      await writer.add([row('a', 1), row('b', 2), invalidRow('c', 3)]);
      expect(writer.committedTotals()).toBeUndefined();
      await writer.commit();
      const totals = writer.committedTotals();
      if (totals) expect(totals).toEqual({ counts: await store.counts(), spend: await store.spend() });
      expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 2, invalid: 1 });
    });

    it('keeps request text given as JSON exactly as written', async () => {
      const requestJson = '{"model":"chat-small","messages":[{"role":"user","content":"caf\\u00e9 \\\\ \\"q\\""}]}';
      await ingest(store, [row('j', 1, { request: null, requestJson })]);
      expect((await store.get('j'))!.request).toEqual(JSON.parse(requestJson));
    });

    it('judges rows under ids already held: unchanged, replaced (was invalid), conflict', async () => {
      await ingest(store, [row('same', 1), row('changed', 2), invalidRow('fixme', 3)]);
      const summary = await ingest(store, [
        row('same', 1),
        row('changed', 7, { contentHash: 'new-hash', sourceFile: 'other.jsonl' }),
        row('fixme', 8, { contentHash: 'fixed' }),
        row('fresh', 9),
      ]);
      expect(summary).toEqual({
        inserted: 1,
        unchanged: 1,
        replaced: 1,
        conflicts: [{ id: 'changed', file: 'other.jsonl', line: 7, journalFile: 'manifest.jsonl', journalLine: 2 }],
      });
      expect((await store.get('fixme'))!).toMatchObject({
        state: 'pending',
        contentHash: 'fixed',
        sourceLine: 8,
        kind: 'chat',
        lastError: null,
      });
      expect((await store.get('changed'))!.contentHash).toBe('hash-of-changed');
      expect((await store.list(['pending', 'invalid'])).map((i) => i.id)).toEqual([
        'same',
        'changed',
        'fixme',
        'fresh',
      ]);
    });

    it('judges an id repeated within one ingest against its first row', async () => {
      const summary = await ingest(store, [
        row('twice', 1),
        row('twice', 2),
        row('clash', 3),
        row('clash', 4, { contentHash: 'other' }),
        invalidRow('bad', 5),
        row('bad', 6, { contentHash: 'good' }),
        row('bad', 7, { contentHash: 'good-again' }),
      ]);
      expect(summary).toEqual({
        inserted: 3,
        unchanged: 1,
        replaced: 1,
        conflicts: [
          { id: 'clash', file: 'manifest.jsonl', line: 4, journalFile: 'manifest.jsonl', journalLine: 3 },
          { id: 'bad', file: 'manifest.jsonl', line: 7, journalFile: 'manifest.jsonl', journalLine: 6 },
        ],
      });
      expect((await store.get('bad'))!).toMatchObject({ state: 'pending', contentHash: 'good', sourceLine: 6 });
      expect((await store.get('twice'))!.sourceLine).toBe(1);
    });

    it('settle() gives the whole summary before the commit; rollback then leaves nothing', async () => {
      await ingest(store, [row('kept', 1)]);
      const writer = await store.beginIngest();
      await writer.add([row('new-1', 2), row('kept', 3, { contentHash: 'changed' }), row('new-2', 4)]);
      await writer.recordManifests([{ path: '/m/rows.jsonl', bytes: 10, sha256: 'abc', rows: 3 }]);
      const summary = writer.settle ? await writer.settle() : writer.progress;
      expect(summary).toEqual({
        inserted: 2,
        unchanged: 0,
        replaced: 0,
        conflicts: [{ id: 'kept', file: 'manifest.jsonl', line: 3, journalFile: 'manifest.jsonl', journalLine: 1 }],
      });
      expect(writer.progress).toEqual(summary);
      expect(await writer.rollback()).toEqual(summary);
      expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 1 });
      expect(await store.get('new-1')).toBeUndefined();
      expect(await store.manifestRecords(['/m/rows.jsonl'])).toEqual(new Map());
    });

    it('a rolled-back first ingest leaves the journal empty, and the next ingest starts clean', async () => {
      const writer = await store.beginIngest();
      await writer.add(Array.from({ length: 300 }, (_, i) => row(`r${i}`, i + 1)));
      await writer.rollback();
      expect(await store.counts()).toEqual(zeroCounts());
      expect(await ingest(store, [row('r0', 1)])).toEqual({ inserted: 1, unchanged: 0, replaced: 0, conflicts: [] });
    });

    it('10,000 rows in batches: all inserted, read back in order in pages; a second ingest finds them unchanged', async () => {
      const rows = Array.from({ length: 10_000 }, (_, i) =>
        row(`row-${String(i).padStart(5, '0')}`, i + 1, { estimateUsd: 0.001 }),
      );
      expect(await ingest(store, rows)).toEqual({ inserted: 10_000, unchanged: 0, replaced: 0, conflicts: [] });
      const seen = await collect(store.iterate({}, 999));
      expect(seen.map((i) => i.id)).toEqual(rows.map((r) => r.id));
      expect(seen.every((item, i) => i === 0 || item.seq > seen[i - 1]!.seq)).toBe(true);
      const page1 = await store.list(['pending'], 100);
      const page2 = await store.list(['pending'], 100, page1[99]!.seq);
      expect(page1.map((i) => i.sourceLine)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(page2.map((i) => i.sourceLine)).toEqual(Array.from({ length: 100 }, (_, i) => i + 101));
      expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 10_000 });
      expect(await ingest(store, rows)).toEqual({ inserted: 0, unchanged: 10_000, replaced: 0, conflicts: [] });
    });
  });
}
