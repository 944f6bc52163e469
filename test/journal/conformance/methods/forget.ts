// The removal of orphaned rows never sent.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingestRun, rowsOf, type Harness } from '../harness.js';

export function forgetConformance(label: string, harness: Harness): void {
  describe(`forget: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('forget removes orphaned rows never sent with their events, all or none; a listed or a sent row is refused', async () => {
      await ingestRun(store, rowsOf('a', 'b', 'c'), [{ path: '/m/a.jsonl', bytes: 10, sha256: 'f00d', rows: 3 }]);
      await store.applyTransitions([{ id: 'b', event: 'defer', detail: { reason: 'budget' } }]);
      await store.applyTransitions([{ id: 'c', event: 'submit', patch: { attempts: 1, reservedUsd: 0.01 } }]);
      await store.applyTransitions([{ id: 'c', event: 'retry', patch: { reservedUsd: 0 } }]);
      await ingestRun(store, rowsOf('a'), [{ path: '/m/a.jsonl', bytes: 9, sha256: 'beef', rows: 1 }]);

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
      await ingestRun(store, rowsOf('a', 'b'));
      expect((await store.get('b'))?.state).toBe('pending');
    });
  });
}
