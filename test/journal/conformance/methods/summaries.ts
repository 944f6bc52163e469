// The job's summaries (counts, spend, the report's sums, the browser's facets, first and last activity, video task
// times) equal a recount of every row and event at each step: ingest, transitions, notes, stores, retries, a
// row replaced by a later ingest, a row forgotten.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { Change, JournalStore } from '../../../../src/journal/index.js';
import { ingest, ingestRun, invalidRow, row, submit, type Harness } from '../harness.js';
import { recount, summarised } from '../recount.js';

export function summariesConformance(label: string, harness: Harness): void {
  describe(`summaries: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    const step = async (changes: Change[]) => {
      clock.tick(1000);
      await store.applyTransitions(changes);
      expect(await summarised(store)).toEqual(await recount(store));
    };

    it('equal a recount of every row and event after each change', async () => {
      expect(await summarised(store)).toEqual(await recount(store));
      await ingestRun(store, [
        row('c1', 1, { estimateUsd: 0.02 }),
        row('c2', 2, { model: 'chat-large', estimateUsd: 0.03 }),
        row('c3', 3, { estimateUsd: 0.01 }),
        row('c4', 4, { estimateUsd: 0.01 }),
        row('v1', 5, { kind: 'video', estimateUsd: 0.5 }),
        row('v2', 6, { kind: 'video', resolution: '1080p', estimateUsd: 1.25 }),
        row('v3', 7, { kind: 'video', estimateUsd: 0.5 }),
        invalidRow('bad', 8, { lastError: { message: 'no prompt', code: 'invalid_row' } }),
        row('gone', 9),
      ]);
      const before = await summarised(store);
      expect(before).toEqual(await recount(store));
      expect(before.counts.pending).toBe(8);
      expect(before.activity).toEqual({ firstAt: null, lastAt: null });

      await step([
        submit('c1', 0.02),
        submit('c2', 0.03),
        submit('c3'),
        submit('v1', 0.5),
        submit('v2', 1.25),
        submit('v3', 0.5),
      ]);
      await step([
        { id: 'c1', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.025, totalTokens: 120 } },
        { id: 'c2', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.03, totalTokens: 80, unmetered: true } },
        {
          id: 'c3',
          event: 'retry',
          patch: { reservedUsd: 0, lastError: { status: 429, code: 'rate_limited', message: 'slow down' } },
          detail: { status: 429, delayMs: 500 },
        },
        { id: 'v1', event: 'accept', patch: { taskId: 't1' } },
        { id: 'v2', event: 'accept', patch: { taskId: 't2' } },
        { id: 'v3', event: 'accept', patch: { taskId: 't3' } },
      ]);
      clock.tick(500);
      await store.annotate('v1', { gatewayChargeUsd: 0.45 }, 'charge');
      await step([
        { id: 'v1', event: 'progress' },
        { id: 'v2', event: 'finish', patch: { reservedUsd: 0, actualUsd: 1.5, finalResolution: '1080p' } },
        {
          id: 'v3',
          event: 'fail',
          patch: { reservedUsd: 0, lastError: { message: 'task failed', code: 'task_failed' } },
        },
        submit('c3', 0.01, 2),
      ]);
      await step([
        { id: 'v1', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.45 } },
        {
          id: 'c3',
          event: 'reject',
          patch: { reservedUsd: 0, lastError: { status: 400, code: 'content_policy', message: 'no' } },
        },
        submit('c4'),
      ]);
      clock.tick(1000);
      await store.markStored(['c1', 'c2'], 'results.jsonl', { flushed: true });
      expect(await summarised(store)).toEqual(await recount(store));
      await step([
        { id: 'c4', event: 'lose', patch: { lastError: { message: 'no answer' } } },
        { id: 'v3', event: 'requeue', patch: { lastError: null } },
      ]);
      await step([{ id: 'c4', event: 'resubmit' }, submit('v3', 0.5, 2)]);
      await step([{ id: 'v3', event: 'accept', patch: { taskId: 't3b' } }]);
      await step([{ id: 'v3', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.5 } }]);

      // A later ingest: the invalid row replaced by a valid one, `gone` no longer listed, then forgotten.
      await ingestRun(store, [
        row('c1', 1, { estimateUsd: 0.02 }),
        row('c2', 2, { model: 'chat-large', estimateUsd: 0.03 }),
        row('c3', 3, { estimateUsd: 0.01 }),
        row('c4', 4, { estimateUsd: 0.01 }),
        row('v1', 5, { kind: 'video', estimateUsd: 0.5 }),
        row('v2', 6, { kind: 'video', resolution: '1080p', estimateUsd: 1.25 }),
        row('v3', 7, { kind: 'video', estimateUsd: 0.5 }),
        row('bad', 8, { contentHash: 'fixed', estimateUsd: 0.04 }),
      ]);
      expect(await summarised(store)).toEqual(await recount(store));
      expect(await store.forget(['gone'])).toEqual({ ok: true, forgotten: ['gone'] });
      const after = await summarised(store);
      expect(after).toEqual(await recount(store));
      expect(after.video.count).toBe(3);
      expect(after.activity.firstAt).toBe(1_700_000_001_000);
      expect(after.facets.errorCodes).toEqual([{ code: 'content_policy', rows: 1 }]);
      expect(after.sums.groups.length).toBeGreaterThan(2);
    });

    it('an ingest rolled back leaves the summaries as they were', async () => {
      await ingest(store, [row('a', 1), row('b', 2)]);
      const writer = await store.beginIngest();
      await writer.add([row('c', 3), row('d', 4, { model: 'chat-large' })]);
      await writer.rollback();
      expect(await summarised(store)).toEqual(await recount(store));
      expect((await store.counts()).pending).toBe(2);
    });
  });
}
