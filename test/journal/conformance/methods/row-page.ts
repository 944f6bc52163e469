// A page of the job's rows for a row browser: each filter alone and together, in manifest order after a cursor.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ids, ingest, row, submit, type Harness } from '../harness.js';

export function rowPageConformance(label: string, harness: Harness): void {
  describe(`rowPage: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      // 60 rows: every 10th a video, every 7th of chat-large; a rare model; ids a-00..a-29, b-30..b-59.
      await ingest(
        store,
        Array.from({ length: 60 }, (_, i) => {
          const id = `${i < 30 ? 'a' : 'b'}-${String(i).padStart(2, '0')}`;
          if (i % 10 === 9) return row(id, i + 1, { kind: 'video', ...(i === 49 ? { model: 'video-pro' } : {}) });
          return row(id, i + 1, i % 7 === 0 ? { model: 'chat-large' } : {});
        }),
      );
      await store.applyTransitions(['a-01', 'a-02', 'b-40', 'b-41'].map((id) => submit(id)));
      await store.applyTransitions([
        { id: 'a-01', event: 'retry', patch: { lastError: { status: 429, code: 'rate_limited', message: 'slow' } } },
        { id: 'a-02', event: 'reject', patch: { lastError: { status: 400, code: 'content_policy', message: 'no' } } },
        { id: 'b-40', event: 'retry', patch: { lastError: { status: 429, code: 'rate_limited', message: 'slow' } } },
        { id: 'b-41', event: 'defer', patch: { lastError: { message: 'over', code: 'budget_exceeded' } } },
      ]);
    });

    const page = async (query: Parameters<JournalStore['rowPage']>[0]) => ids(await store.rowPage(query));

    it('pages every row in manifest order after a cursor, at most limit', async () => {
      const first = await store.rowPage({ limit: 25 });
      expect(first.map((i) => i.seq)).toEqual([...first.map((i) => i.seq)].sort((a, b) => a - b));
      expect(ids(first)[0]).toBe('a-00');
      expect(first).toHaveLength(25);
      const rest = await store.rowPage({ limit: 500, afterSeq: first[24]!.seq });
      expect(rest).toHaveLength(35);
      expect(ids(rest)[0]).toBe('a-25');
      expect(await page({ limit: 10, afterSeq: rest[34]!.seq })).toEqual([]);
    });

    it('filters by state, kind, model, error code and id prefix, alone and together', async () => {
      expect(await page({ states: ['rejected', 'deferred'], limit: 50 })).toEqual(['a-02', 'b-41']);
      expect(await page({ kinds: ['video'], limit: 3 })).toEqual(['a-09', 'a-19', 'a-29']);
      expect(await page({ model: 'video-pro', limit: 50 })).toEqual(['b-49']);
      expect(await page({ model: 'chat-large', limit: 3 })).toEqual(['a-00', 'a-07', 'a-14']);
      expect(await page({ errorCode: 'rate_limited', limit: 50 })).toEqual(['a-01', 'b-40']);
      expect(await page({ errorCode: 'budget_exceeded', limit: 50 })).toEqual(['b-41']);
      expect(await page({ errorCode: 'no_such_code', limit: 50 })).toEqual([]);
      expect(await page({ idPrefix: 'b-4', limit: 50 })).toEqual(Array.from({ length: 10 }, (_, i) => `b-4${i}`));
      expect(await page({ idPrefix: 'b-41', limit: 50 })).toEqual(['b-41']);
      expect(await page({ idPrefix: 'c', limit: 50 })).toEqual([]);
      expect(await page({ errorCode: 'rate_limited', idPrefix: 'b', limit: 50 })).toEqual(['b-40']);
      expect(
        await page({ states: ['pending'], kinds: ['video'], model: 'video-fast', idPrefix: 'b', limit: 2 }),
      ).toEqual(['b-39', 'b-59']);
      const after = (await store.get('b-40'))!.seq;
      expect(await page({ model: 'chat-large', states: ['pending'], limit: 50, afterSeq: after })).toEqual([
        'b-42',
        'b-56',
      ]);
    });

    it('the rows it gives are whole items', async () => {
      const [item] = await store.rowPage({ errorCode: 'content_policy', limit: 1 });
      expect(item).toMatchObject({ id: 'a-02', state: 'rejected', lastError: { code: 'content_policy' } });
      expect(item).toEqual(await store.get('a-02'));
    });
  });
}
