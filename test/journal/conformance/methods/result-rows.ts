// The rows that have a results line, in pages.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { answered, ingest, invalidRow, resultsRows, row, submit, type Harness } from '../harness.js';

export function resultRowsConformance(label: string, harness: Harness): void {
  describe(`resultRows: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, resultsRows());
    });

    it('resultRows: rows with a line, after a seq, under a limit, cut at about maxBytes (at least one)', async () => {
      for (const id of ['c1', 'c2', 'c4', 'c5']) await store.applyTransitions(answered(id, 'x'.repeat(90)));
      await store.applyTransitions([
        submit('c3'),
        { id: 'c3', event: 'reject', patch: { lastError: { status: 400, message: 'bad' }, responseStatus: 400 } },
      ]);
      const all = await store.resultRows(0, 100, 1_000_000);
      expect(all.map((r) => r.id)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
      expect(all[0]).toEqual({
        seq: all[0]!.seq,
        id: 'c1',
        kind: 'chat',
        state: 'succeeded',
        response: JSON.stringify({ body: 'x'.repeat(90) }),
        response_status: 200,
        request_id: null,
        last_error: null,
        task_id: null,
        final_resolution: null,
        output_path: null,
        sha256: null,
        bytes: null,
        meta: null,
      });
      expect(all[2]!.last_error).toBe(JSON.stringify({ status: 400, message: 'bad' }));
      const bodyLength = all[0]!.response!.length;
      expect((await store.resultRows(0, 100, bodyLength * 2 + 1)).map((r) => r.id)).toEqual(['c1', 'c2', 'c3']);
      expect((await store.resultRows(0, 100, 1)).map((r) => r.id)).toEqual(['c1']);
      expect((await store.resultRows(0, 2, 1_000_000)).map((r) => r.id)).toEqual(['c1', 'c2']);
      expect((await store.resultRows(all[1]!.seq, 100, 1_000_000)).map((r) => r.id)).toEqual(['c3', 'c4', 'c5']);
    });

    it("resultRows 'every': each row whatever its state, in input order, under the same limit and cut", async () => {
      await store.applyTransitions(answered('c2', 'y'.repeat(90)));
      await store.applyTransitions([submit('c4')]);
      const every = await store.resultRows(0, 100, 1_000_000, 'every');
      expect(every.map((r) => [r.id, r.state])).toEqual([
        ['c1', 'pending'],
        ['c2', 'succeeded'],
        ['c3', 'pending'],
        ['c4', 'submitting'],
        ['c5', 'pending'],
        ['v6', 'pending'],
        ['c7', 'pending'],
      ]);
      expect(every[1]!.response).toBe(JSON.stringify({ body: 'y'.repeat(90) }));
      expect((await store.resultRows(0, 100, 1_000_000)).map((r) => r.id)).toEqual(['c2']);
      expect((await store.resultRows(every[2]!.seq, 2, 1_000_000, 'every')).map((r) => r.id)).toEqual(['c4', 'c5']);
      expect((await store.resultRows(0, 100, 1, 'every')).map((r) => r.id)).toEqual(['c1', 'c2']);
    });

    it("resultRows: a row's metadata as ingested (never part of its request); a replaced invalid row takes the new row's", async () => {
      await ingest(store, [
        row('m1', 11, { metaJson: '{"notes":"caf\\u00e9, $1","owner":"ana"}' }),
        invalidRow('m2', 12),
      ]);
      await ingest(store, [row('m2', 12, { contentHash: 'fixed', metaJson: '{"owner":"bo"}' })]);
      for (const id of ['m1', 'm2']) await store.applyTransitions(answered(id, 'z'));
      const rows = await store.resultRows(0, 100, 1_000_000);
      expect(rows.filter((r) => r.id.startsWith('m')).map((r) => [r.id, r.meta])).toEqual([
        ['m1', '{"notes":"caf\\u00e9, $1","owner":"ana"}'],
        ['m2', '{"owner":"bo"}'],
      ]);
      expect((await store.get('m1'))!.request).toEqual(row('m1', 11).request);
    });
  });
}
