// The job's first submission and last activity, and its video tasks' times to success.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, type Harness } from '../harness.js';

const T0 = 1_700_000_000_000;

export function activityConformance(label: string, harness: Harness): void {
  describe(`activity and videoTaskTimes: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(T0);
      store = await harness.open({ clock });
    });

    it('none before anything is sent; then the first submission and the last change', async () => {
      await ingest(store, [row('a', 1), row('b', 2), row('v', 3, { kind: 'video' }), row('w', 4, { kind: 'video' })]);
      clock.tick(1000);
      await store.applyTransitions([{ id: 'b', event: 'defer', detail: { reason: 'budget' } }]);
      expect(await store.activity()).toEqual({ firstAt: null, lastAt: null });
      expect(await store.videoTaskTimes()).toEqual({ count: 0, medianMs: null });
      clock.tick(1000);
      await store.applyTransitions([submit('a'), submit('v', 0.5), submit('w', 0.5)]);
      expect(await store.activity()).toEqual({ firstAt: T0 + 2000, lastAt: T0 + 2000 });
      clock.tick(3000);
      await store.applyTransitions([
        { id: 'v', event: 'accept', patch: { taskId: 't-v' } },
        { id: 'w', event: 'accept', patch: { taskId: 't-w' } },
      ]);
      clock.tick(4000);
      await store.applyTransitions([{ id: 'v', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.5 } }]);
      expect(await store.videoTaskTimes()).toEqual({ count: 1, medianMs: 7000 });
      clock.tick(10_000);
      await store.applyTransitions([{ id: 'w', event: 'progress' }]);
      await store.applyTransitions([{ id: 'w', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.5 } }]);
      // Nearest rank: the lower of two.
      expect(await store.videoTaskTimes()).toEqual({ count: 2, medianMs: 7000 });
      clock.tick(500);
      await store.markStored(['v'], 'out/v.mp4', {});
      expect(await store.activity()).toEqual({ firstAt: T0 + 2000, lastAt: T0 + 19_500 });
    });
  });
}
