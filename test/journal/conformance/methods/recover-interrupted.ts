// At the start of a run: the rows a stopped runner left mid-request become uncertain, never resent blindly.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ids, ingest, row, submit, type Harness } from '../harness.js';

export function recoverInterruptedConformance(label: string, harness: Harness): void {
  describe(`recoverInterrupted: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;

    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      await ingest(store, [row('a', 1), row('b', 2), row('c', 3)]);
    });

    it("a stopped runner's submitting rows become uncertain; its other rows stay as they are", async () => {
      await store.membership.acquire();
      await store.applyTransitions([
        submit('a'),
        submit('b'),
        { id: 'b', event: 'complete', patch: { reservedUsd: 0 } },
      ]);
      await store.membership.release();

      const next = await harness.open({ clock });
      await next.membership.acquire();
      expect(ids(await next.recoverInterrupted())).toEqual(['a']);
      expect((await next.get('a'))!).toMatchObject({ state: 'uncertain', reservedUsd: 0.01 });
      expect((await next.get('b'))!.state).toBe('succeeded');
      expect((await next.get('c'))!.state).toBe('pending');
      expect((await next.events('a')).at(-1)).toMatchObject({ from: 'submitting', to: 'uncertain' });
      expect(await next.recoverInterrupted()).toEqual([]);
    });
  });
}
