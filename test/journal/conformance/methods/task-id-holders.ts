// Where the journal holds a task id: now, and in every accept or attach.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, type Harness } from '../harness.js';

export function taskIdHoldersConformance(label: string, harness: Harness): void {
  describe(`taskIdHolders: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, [
        row('a', 1, { kind: 'video' }),
        row('b', 2, { kind: 'video' }),
        row('c', 3, { kind: 'video' }),
      ]);
      await store.applyTransitions([submit('a', 2.5), { id: 'a', event: 'lose' }]);
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

    it('taskIdHolders: a task answered by two ids (`id`, `task_id`) is held by either one', async () => {
      await store.applyTransitions([
        submit('b', 0.5),
        {
          id: 'b',
          event: 'accept',
          patch: { taskId: 'gw_7', response: { task_ids: ['gw_7', 'task_7'] } },
          detail: { taskId: 'gw_7', attempt: 1, taskIds: ['gw_7', 'task_7'] },
        },
      ]);
      for (const id of ['gw_7', 'task_7'])
        expect(await store.taskIdHolders(id)).toEqual([
          { itemId: 'b', current: true, event: null, attempt: null },
          { itemId: 'b', current: false, event: 'accept', attempt: 1 },
        ]);
      // Only an exact id: a prefix of one, or text around it, is no task id held.
      expect(await store.taskIdHolders('task_')).toEqual([]);
      expect(await store.taskIdHolders('7')).toEqual([]);
    });
  });
}
