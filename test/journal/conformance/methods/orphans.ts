// The orphaned rows that wait for an operator, and the listing of each id.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingestRun, rowsOf, type Harness } from '../harness.js';

export function orphansConformance(label: string, harness: Harness): void {
  describe(`orphans and listings: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('a row sent is still orphaned when no manifest lists it, but only rows that wait are summed', async () => {
      await ingestRun(store, rowsOf('sent', 'done', 'waits'));
      await store.applyTransitions([{ id: 'sent', event: 'submit', patch: { attempts: 1, reservedUsd: 0.5 } }]);
      await ingestRun(store, rowsOf('done'));
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
  });
}
