// A row's retry allowance (autoRetries) and its failed download rounds (downloadFailures): written by the
// policy's requeue, an annotate and the `forfeit` move, read back the same by every adapter, and reset by an
// operator's requeue, so that every run of any runner counts them alike.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { requeueChange } from '../../../../src/journal/requeue.js';
import { fourRows, ingest, submit, type Harness } from '../harness.js';

export function retryAllowanceConformance(label: string, harness: Harness): void {
  describe(`retry allowance and download failures: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await ingest(store, fourRows());
    });

    it('a new row holds 0 of each; the policy requeue records its retry, an operator requeue resets both', async () => {
      expect(await store.get('video')).toMatchObject({ autoRetries: 0, downloadFailures: 0 });
      await store.applyTransitions([
        submit('video', 0.5),
        { id: 'video', event: 'accept', patch: { taskId: 't1' } },
        { id: 'video', event: 'fail', patch: { reservedUsd: 0, actualUsd: 0 } },
      ]);
      await store.apply([requeueChange((await store.get('video'))!, { by: 'retry-policy', retry: 1 })]);
      expect(await store.get('video')).toMatchObject({ state: 'pending', autoRetries: 1 });
      await store.applyTransitions([
        submit('video', 0.5),
        { id: 'video', event: 'accept', patch: { taskId: 't2' } },
        { id: 'video', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.5 } },
      ]);
      await store.annotate('video', { downloadFailures: 10, lastError: { message: 'short body' } }, 'download-error');
      expect(await store.get('video')).toMatchObject({ state: 'succeeded', autoRetries: 1, downloadFailures: 10 });
      await store.apply([
        { id: 'video', event: 'forfeit', expect: 'succeeded', patch: { lastError: { message: 'x' } } },
      ]);
      const forfeited = (await store.get('video'))!;
      expect(forfeited).toMatchObject({ state: 'failed', actualUsd: 0.5, downloadFailures: 10, autoRetries: 1 });
      await store.apply([requeueChange(forfeited)]);
      expect(await store.get('video')).toMatchObject({ state: 'pending', autoRetries: 0, downloadFailures: 0 });
    });
  });
}
