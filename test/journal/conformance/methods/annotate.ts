// Fields patched without a state change, logged as a note.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { fourRows, ingest, submit, type Harness } from '../harness.js';

export function annotateConformance(label: string, harness: Harness): void {
  describe(`annotate: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    beforeEach(async () => {
      await ingest(store, fourRows());
    });

    it('annotate patches fields, keeps the state, logs a note; an empty patch does nothing', async () => {
      await store.applyTransitions([submit('video', 0.5), { id: 'video', event: 'accept', patch: { taskId: 't' } }]);
      clock.tick(7);
      await store.annotate('video', { gatewayChargeUsd: 0.45 }, 'charge');
      await store.annotate('video', {}, 'nothing');
      expect((await store.get('video'))!).toMatchObject({
        state: 'submitted',
        gatewayChargeUsd: 0.45,
        updatedAt: clock.now(),
      });
      expect((await store.events('video')).slice(2)).toEqual([
        { at: clock.now(), event: 'charge', from: 'submitted', to: 'submitted', detail: null },
      ]);
      await expect(store.annotate('ghost', { gatewayChargeUsd: 1 }, 'charge')).rejects.toThrow("unknown item 'ghost'");
    });

    it('a note is never refused as stale: it lands on the row as another connection left it, whoever holds it', async () => {
      await store.applyTransitions([submit('video', 0.5)]);
      const other = await harness.open({ clock });
      await other.applyTransitions([{ id: 'video', event: 'accept', patch: { taskId: 't' } }]);
      clock.tick(3);
      await store.annotate('video', { gatewayChargeUsd: 0.45 }, 'charge');
      expect(await store.get('video')).toMatchObject({ state: 'submitted', taskId: 't', gatewayChargeUsd: 0.45 });
      expect((await store.events('video')).at(-1)).toEqual({
        at: clock.now(),
        event: 'charge',
        from: 'submitted',
        to: 'submitted',
        detail: null,
      });
      expect(await other.spend()).toEqual({ reservedUsd: 0.5, actualUsd: 0 });
    });

    it("a note's charge moves the job's money as a move's would, on every reading of it", async () => {
      await store.applyTransitions([submit('video', 0.5), { id: 'video', event: 'accept', patch: { taskId: 't' } }]);
      await store.annotate('video', { actualUsd: 0.125 }, 'charge');
      const spend = { reservedUsd: 0.5, actualUsd: 0.125 };
      expect(await store.spend()).toEqual(spend);
      expect(await store.coordination.jobMoney()).toMatchObject(spend);
    });
  });
}
