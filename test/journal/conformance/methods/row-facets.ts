// The job's models and error codes with their row counts: a row browser's filter choices.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, invalidRow, row, submit, type Harness } from '../harness.js';

export function rowFacetsConformance(label: string, harness: Harness): void {
  describe(`rowFacets: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('counts rows per model and per error code, most rows first, and follows the rows as they move', async () => {
      expect(await store.rowFacets()).toEqual({ models: [], errorCodes: [] });
      await ingest(store, [
        row('c1', 1),
        row('c2', 2),
        row('l1', 3, { model: 'chat-large' }),
        row('v1', 4, { kind: 'video' }),
        row('v2', 5, { kind: 'video' }),
        invalidRow('bad', 6),
      ]);
      expect(await store.rowFacets()).toEqual({
        models: [
          { model: 'chat-small', rows: 2 },
          { model: 'video-fast', rows: 2 },
          { model: 'chat-large', rows: 1 },
        ],
        errorCodes: [],
      });
      await store.applyTransitions([submit('c1'), submit('l1')]);
      await store.applyTransitions([
        { id: 'c1', event: 'retry', patch: { lastError: { status: 429, code: 'rate_limited', message: 'slow' } } },
        { id: 'l1', event: 'retry', patch: { lastError: { status: 429, code: 'rate_limited', message: 'slow' } } },
        { id: 'v1', event: 'defer', patch: { lastError: { message: 'over', code: 'budget_exceeded' } } },
      ]);
      expect((await store.rowFacets()).errorCodes).toEqual([
        { code: 'rate_limited', rows: 2 },
        { code: 'budget_exceeded', rows: 1 },
      ]);
      await store.applyTransitions([submit('c1', 0.01, 2)]);
      await store.applyTransitions([{ id: 'c1', event: 'complete', patch: { lastError: null, actualUsd: 0.01 } }]);
      expect((await store.rowFacets()).errorCodes).toEqual([
        { code: 'budget_exceeded', rows: 1 },
        { code: 'rate_limited', rows: 1 },
      ]);
    });
  });
}
