// Conformance cases for what an operator's `resolve` and `run` ask of the journal (issue 19): an abandoned
// uncertain row's bound stays booked until `unreserve`; `detach` books it again; `taskIdHolders` finds a task
// id wherever the journal holds it; the job file's budget record. Registered by journalConformance.
import type { ManualClock } from '../../../src/core/clock.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Change, JournalStore } from '../../../src/journal/index.js';
import { ingest, row, type Harness } from './harness.js';

const submit = (id: string, reservedUsd: number, attempt = 1): Change => ({
  id,
  event: 'submit',
  patch: { attempts: attempt, reservedUsd },
  detail: { attempt },
});

export function operatorDecisions(context: () => { store: JournalStore; clock: ManualClock; harness: Harness }): void {
  describe('operator decisions', () => {
    let store: JournalStore;
    beforeEach(async () => {
      ({ store } = context());
      await ingest(store, [
        row('a', 1, { kind: 'video' }),
        row('b', 2, { kind: 'video' }),
        row('c', 3, { kind: 'video' }),
      ]);
      await store.applyTransitions([submit('a', 2.5), { id: 'a', event: 'lose' }]);
    });

    it("abandon keeps an uncertain row's bound booked; unreserve releases it; the row stays abandoned while uncertain", async () => {
      await store.apply([
        {
          id: 'a',
          event: 'abandon',
          expect: 'uncertain',
          patch: { lastError: { type: 'abandoned_uncertain', message: 'booked' } },
        },
      ]);
      expect(await store.get('a')).toMatchObject({
        state: 'failed',
        reservedUsd: 2.5,
        lastError: { type: 'abandoned_uncertain' },
      });
      expect(await store.spend()).toEqual({ reservedUsd: 2.5, actualUsd: 0 });
      const [released] = await store.apply([
        {
          id: 'a',
          event: 'unreserve',
          expect: 'failed',
          patch: { reservedUsd: 0 },
          detail: { by: 'operator', notBilled: true },
        },
      ]);
      expect(released).toMatchObject({ state: 'failed', reservedUsd: 0 });
      expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
      expect((await store.events('a')).at(-1)).toMatchObject({
        event: 'unreserve',
        from: 'failed',
        to: 'failed',
        detail: { notBilled: true },
      });
      expect(await store.abandonedWhileUncertain(['a'])).toEqual(new Set(['a']));
    });

    it('taskIdHolders: the row holding a task now, and each accept or attach that gave it, exactly that id', async () => {
      await store.applyTransitions([
        submit('b', 0.5),
        { id: 'b', event: 'accept', patch: { taskId: 'task_1' }, detail: { taskId: 'task_1', attempt: 1 } },
      ]);
      await store.applyTransitions([
        submit('c', 0.5),
        { id: 'c', event: 'accept', patch: { taskId: 'task_10' }, detail: { taskId: 'task_10', attempt: 1 } },
      ]);
      await store.applyTransitions([{ id: 'c', event: 'fail', patch: { reservedUsd: 0, actualUsd: 0 } }]);
      expect(await store.taskIdHolders('task_1')).toEqual([
        { itemId: 'b', current: true, event: null, attempt: null },
        { itemId: 'b', current: false, event: 'accept', attempt: 1 },
      ]);
      expect(await store.taskIdHolders('task_10')).toEqual([
        { itemId: 'c', current: true, event: null, attempt: null },
        { itemId: 'c', current: false, event: 'accept', attempt: 1 },
      ]);
      await store.apply([
        {
          id: 'a',
          event: 'attach',
          expect: 'uncertain',
          patch: { taskId: 'task_1' },
          detail: { by: 'operator', taskId: 'task_1', reservedUsd: 2.5 },
        },
      ]);
      expect((await store.taskIdHolders('task_1')).map((h) => [h.itemId, h.current, h.event])).toEqual([
        ['a', true, null],
        ['b', true, null],
        ['b', false, 'accept'],
        ['a', false, 'attach'],
      ]);
      expect(await store.taskIdHolders('task_2')).toEqual([]);
    });

    it('detach: an attached task undone from downloaded, the task and its money cleared and the bound booked again', async () => {
      await store.apply([
        {
          id: 'a',
          event: 'attach',
          expect: 'uncertain',
          patch: { taskId: 'task_x' },
          detail: { by: 'operator', taskId: 'task_x', reservedUsd: 2.5 },
        },
      ]);
      await store.applyTransitions([
        { id: 'a', event: 'finish', patch: { actualUsd: 0.4, reservedUsd: 0, finalResolution: '720p' } },
      ]);
      await store.applyTransitions([
        { id: 'a', event: 'store', patch: { outputPath: 'out/a.mp4', sha256: 'ab', bytes: 9 } },
      ]);
      expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0.4 });
      const [back] = await store.apply([
        {
          id: 'a',
          event: 'detach',
          expect: 'downloaded',
          patch: {
            taskId: null,
            actualUsd: null,
            finalResolution: null,
            outputPath: null,
            sha256: null,
            bytes: null,
            reservedUsd: 2.5,
          },
          detail: { by: 'operator', taskId: 'task_x' },
        },
      ]);
      expect(back).toMatchObject({
        state: 'uncertain',
        taskId: null,
        actualUsd: null,
        outputPath: null,
        reservedUsd: 2.5,
      });
      expect(await store.spend()).toEqual({ reservedUsd: 2.5, actualUsd: 0 });
      expect(await store.counts()).toMatchObject({ uncertain: 1, downloaded: 0 });
    });

    it("the job file's budget is recorded with the job; a save that does not say keeps the record", async () => {
      const { harness } = context();
      const name = harness.jobName();
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: 180, jobFileBudget: 100 });
      expect(await store.getJob()).toMatchObject({ budgetUsd: 180, jobFileBudget: 100 });
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: 180 });
      expect((await store.getJob())!.jobFileBudget).toBe(100);
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: undefined, jobFileBudget: 'none' });
      expect(await store.getJob()).toMatchObject({ jobFileBudget: 'none' });
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: undefined, jobFileBudget: 'unset' });
      expect((await store.getJob())!.jobFileBudget).toBe('unset');
    });
  });
}
