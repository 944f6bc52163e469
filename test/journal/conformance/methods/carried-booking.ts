// An attempt that may have been billed keeps its booking when the row is sent again (core/plan-changes.ts):
// on either adapter, on the one-round-trip path of a runner's commit (changes naming their expected
// state) and on the read-then-write path of an operator's decision.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { Change, JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, thrown, type Harness } from '../harness.js';

export function carriedBookingConformance(label: string, harness: Harness): void {
  describe(`the carried booking of a row sent again: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      await ingest(store, [row('v', 1, { kind: 'video' }), row('c', 2), row('f', 3, { kind: 'video' })]);
    });

    const money = async (id: string) => {
      const item = (await store.get(id))!;
      return { reservedUsd: item.reservedUsd, carriedUsd: item.carriedUsd, actualUsd: item.actualUsd };
    };

    it('a resubmitted uncertain row keeps its bound; the next attempt reserves on top; settling keeps what is carried', async () => {
      await store.applyTransitions([submit('v', 2.5), { id: 'v', event: 'lose', expect: 'submitting' }]);
      await store.apply([{ id: 'v', event: 'resubmit', expect: 'uncertain', patch: { reservedUsd: 0 } }]);
      expect(await money('v')).toEqual({ reservedUsd: 0, carriedUsd: 2.5, actualUsd: null });
      expect(await store.spend()).toEqual({ reservedUsd: 2.5, actualUsd: 0 });

      await store.applyTransitions([{ ...submit('v', 2.5, 2), expect: 'pending' }]);
      expect(await money('v')).toEqual({ reservedUsd: 2.5, carriedUsd: 2.5, actualUsd: null });
      expect(await store.spend()).toEqual({ reservedUsd: 5, actualUsd: 0 });

      await store.applyTransitions([
        { id: 'v', event: 'accept', expect: 'submitting', patch: { taskId: 't2' } },
        { id: 'f', event: 'submit', expect: 'pending', patch: { attempts: 1, reservedUsd: 0.5 } },
      ]);
      await store.applyTransitions([
        { id: 'v', event: 'finish', expect: 'submitted', patch: { reservedUsd: 0, actualUsd: 2.1 } },
      ]);
      expect(await money('v')).toEqual({ reservedUsd: 0, carriedUsd: 2.5, actualUsd: 2.1 });
      expect(await store.spend()).toEqual({ reservedUsd: 3, actualUsd: 2.1 });
    });

    it('a requeued answer the gateway billed moves its charge into the carried booking; a refunded failure carries nothing', async () => {
      await store.applyTransitions([
        submit('c', 0.04),
        { id: 'f', event: 'submit', patch: { attempts: 1, reservedUsd: 0.5 } },
      ]);
      await store.applyTransitions([
        { id: 'c', event: 'oversize', expect: 'submitting', patch: { reservedUsd: 0, actualUsd: 0.04 } },
        { id: 'f', event: 'accept', expect: 'submitting', patch: { taskId: 'tf' } },
      ]);
      await store.applyTransitions([{ id: 'f', event: 'fail', expect: 'submitted', patch: { reservedUsd: 0 } }]);
      const requeue = (id: string): Change => ({ id, event: 'requeue', patch: { reservedUsd: 0, actualUsd: null } });
      await store.apply([requeue('c'), requeue('f')]);
      expect(await money('c')).toEqual({ reservedUsd: 0, carriedUsd: 0.04, actualUsd: null });
      expect(await money('f')).toEqual({ reservedUsd: 0, carriedUsd: 0, actualUsd: null });
      expect(await store.spend()).toEqual({ reservedUsd: 0.04, actualUsd: 0 });
      // Deferred, cancelled or abandoned unsent, the row still carries it.
      await store.applyTransitions([{ id: 'c', event: 'defer', expect: 'pending', patch: { reservedUsd: 0 } }]);
      expect(await money('c')).toEqual({ reservedUsd: 0, carriedUsd: 0.04, actualUsd: null });
      expect(await store.spend()).toEqual({ reservedUsd: 0.04, actualUsd: 0 });
    });

    it('no change may set the carried booking itself', async () => {
      const err = await thrown(store.apply([{ id: 'c', event: 'abandon', patch: { carriedUsd: 0 } }]));
      expect(String(err)).toMatch(/carried booking is the planner's alone/);
      expect(await money('c')).toEqual({ reservedUsd: 0, carriedUsd: 0, actualUsd: null });
    });
  });
}
