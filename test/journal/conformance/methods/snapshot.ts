// A snapshot reads the job's rows and the cost history as they stood when it was taken, whatever the run
// commits while it is read; closed, it gives its connection back.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore, SettledCostRecord } from '../../../../src/journal/index.js';
import { collect, fourRows, ingest, submit, type Harness } from '../harness.js';

const LATER: SettledCostRecord = {
  id: 'snapshot-later',
  account: 'account-a',
  model: 'chat-small',
  kind: 'chat',
  resolution: null,
  finalResolution: null,
  durationS: null,
  sizeBucket: 9,
  estimateUsd: 0.01,
  boundUsd: 0.02,
  actualUsd: 0.011,
  settledAt: 1_700_000_000_000,
};

export function snapshotConformance(label: string, harness: Harness): void {
  describe(`snapshot: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      await ingest(store, fourRows());
    });

    it('reads the rows and the history as they stood when taken, not what was committed after', async () => {
      const snapshot = await store.snapshot();
      try {
        const historyBefore = (await store.settledCosts()).length;
        await store.applyTransitions([submit('chat'), submit('fourth')]);
        await store.recordSettled([LATER]);
        expect((await collect(store.iterate({ states: ['pending'] }))).map((i) => i.id)).toEqual(['video', 'third']);
        // Pages of one row: each is read after the changes above.
        const pending = await collect(snapshot.iterate({ states: ['pending'], notOrphaned: true }, 1));
        expect(pending.map((i) => i.id)).toEqual(['chat', 'video', 'third', 'fourth']);
        expect(pending.map((i) => i.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
        const history = await snapshot.settledCosts();
        expect(history.length).toBe(historyBefore);
        expect(history.some((r) => r.id === LATER.id)).toBe(false);
      } finally {
        await snapshot.close();
      }
      await snapshot.close(); // a second close does nothing
      expect((await store.settledCosts()).some((r) => r.id === LATER.id)).toBe(true);
    });
  });
}
