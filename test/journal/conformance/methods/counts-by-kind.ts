// Rows by kind of work and state: counts() split by kind, every kind and state present.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, zeroCounts, type Harness } from '../harness.js';

export function countsByKindConformance(label: string, harness: Harness): void {
  describe(`countsByKind: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('is every kind with every state, zeros included, before any row', async () => {
      const none = await store.countsByKind();
      expect(none).toEqual({ chat: zeroCounts(), responses: zeroCounts(), video: zeroCounts() });
    });

    it('splits the counts by kind: the kinds add up to counts()', async () => {
      await ingest(store, [
        row('c1', 1),
        row('c2', 2),
        row('r1', 3, { kind: 'responses', request: { model: 'chat-small', input: 'hi' } }),
        row('v1', 4, { kind: 'video' }),
        row('v2', 5, { kind: 'video' }),
      ]);
      await store.applyTransitions([submit('c1'), submit('v1'), submit('r1')]);
      await store.applyTransitions([
        { id: 'c1', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.01 } },
        { id: 'v1', event: 'accept', patch: { taskId: 'task-1' } },
      ]);
      const byKind = await store.countsByKind();
      expect(byKind).toEqual({
        chat: { ...zeroCounts(), pending: 1, succeeded: 1 },
        responses: { ...zeroCounts(), submitting: 1 },
        video: { ...zeroCounts(), pending: 1, submitted: 1 },
      });
      const summed = zeroCounts();
      for (const counts of Object.values(byKind))
        for (const [state, n] of Object.entries(counts)) summed[state as keyof typeof summed] += n;
      expect(summed).toEqual(await store.counts());
    });
  });
}
