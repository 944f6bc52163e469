import { describe, expect, it } from 'vitest';
import {
  attachConflict,
  currentHolders,
  eventHolders,
  planDetach,
  type DetachRow,
} from '../../src/core/task-attach.js';

describe('attachConflict: a task the journal holds elsewhere is refused without --force', () => {
  it("another row's current task, or one it held, or this row's own ended attempt", () => {
    expect(attachConflict('a', 't1', [], 1)).toBeUndefined();
    expect(attachConflict('a', 't1', [{ itemId: 'b', current: true, event: null, attempt: null }], 3)).toMatch(
      /already item 'b''s task.*--force/,
    );
    expect(attachConflict('a', 't1', [{ itemId: 'b', current: false, event: 'accept', attempt: 2 }], 3)).toMatch(
      /was item 'b''s task in attempt 2/,
    );
    expect(attachConflict('a', 't1', [{ itemId: 'a', current: false, event: 'accept', attempt: 1 }], 3)).toMatch(
      /was this item's task in attempt 1/,
    );
    // The gateway's answer to the uncertain attempt itself (its task vanished, or the row was rewound): no conflict.
    expect(
      attachConflict('a', 't1', [{ itemId: 'a', current: false, event: 'accept', attempt: 3 }], 3),
    ).toBeUndefined();
    // An attachment of this attempt that was undone (--detach-task) is refused again without --force.
    expect(attachConflict('a', 't1', [{ itemId: 'a', current: false, event: 'attach', attempt: 3 }], 3)).toMatch(
      /was this item's task in attempt 3/,
    );
  });

  it('eventHolders reads only details naming exactly that task', () => {
    const rows = [
      { item_id: 'a', event: 'accept' as const, detail: '{"taskId":"t1","attempt":1}' },
      { item_id: 'b', event: 'accept' as const, detail: '{"taskId":"t10","attempt":1}' },
      { item_id: 'c', event: 'attach' as const, detail: '{"by":"operator","taskId":"t1"}' },
    ];
    expect(eventHolders(rows, 't1')).toEqual([
      { itemId: 'a', current: false, event: 'accept', attempt: 1 },
      { itemId: 'c', current: false, event: 'attach', attempt: null },
    ]);
  });
});

describe('a task answered by two ids, and a row of another job of the same database', () => {
  it("currentHolders: a row holds a task by its task id or by its answer's other id", () => {
    const rows = [
      { item_id: 'a', task_id: 'gw_1', response: '{"task_ids":["gw_1","t1"]}' },
      { item_id: 'b', task_id: 't10', response: null },
      { item_id: 'c', job: 'night1', task_id: 't1', response: null },
      { item_id: 'd', task_id: 'x', response: '{"task_ids":["x","t1x"]}' },
    ];
    expect(currentHolders(rows, 't1')).toEqual([
      { itemId: 'a', current: true, event: null, attempt: null },
      { itemId: 'c', job: 'night1', current: true, event: null, attempt: null },
    ]);
  });

  it("eventHolders: an accept's other answered id is that row's task too", () => {
    const rows = [
      { item_id: 'a', event: 'accept' as const, detail: '{"taskId":"gw_1","attempt":2,"taskIds":["gw_1","t1"]}' },
      { item_id: 'b', job: 'night1', event: 'attach' as const, detail: '{"by":"operator","taskId":"t1"}' },
    ];
    expect(eventHolders(rows, 't1')).toEqual([
      { itemId: 'a', current: false, event: 'accept', attempt: 2 },
      { itemId: 'b', job: 'night1', current: false, event: 'attach', attempt: null },
    ]);
  });

  it('attachConflict: the same item id in another job is another row, named with its job', () => {
    expect(
      attachConflict('v1', 't1', [{ itemId: 'v1', job: 'night1', current: true, event: null, attempt: null }], 1),
    ).toBe(
      "task t1 is already item 'v1''s task in job 'night1': attached here, its video would be saved under the wrong row; pass --force to attach it anyway",
    );
    expect(
      attachConflict('v1', 't1', [{ itemId: 'v1', job: 'night1', current: false, event: 'accept', attempt: 1 }], 1),
    ).toMatch(/^task t1 was item 'v1''s task in job 'night1' in attempt 1: /);
  });
});

describe('planDetach: only an attached task is undone, with the bound booked again', () => {
  const row = (extra: Partial<DetachRow> = {}): DetachRow => ({
    id: 'a',
    state: 'downloaded',
    taskId: 't1',
    reservedUsd: 0,
    estimateUsd: 0.5,
    actualUsd: 0.4,
    ...extra,
  });

  it('books again the bound held when it was attached', () => {
    expect(planDetach(row(), { event: 'attach', taskId: 't1', reservedUsd: 2.8 })).toEqual({
      ok: true,
      taskId: 't1',
      reservedUsd: 2.8,
    });
    expect(
      planDetach(row({ state: 'submitted', reservedUsd: 2.8 }), { event: 'attach', taskId: 't1', reservedUsd: 2.8 }),
    ).toEqual({ ok: true, taskId: 't1', reservedUsd: 2.8 });
  });

  it("refuses the gateway's own task, a row without one, and states it cannot leave", () => {
    expect(planDetach(row(), { event: 'accept', taskId: 't1', reservedUsd: undefined })).toMatchObject({
      ok: false,
      why: expect.stringMatching(/not an attachment/),
    });
    expect(planDetach(row({ taskId: null, state: 'uncertain' }), undefined)).toMatchObject({ ok: false });
    expect(planDetach(row({ state: 'pending' }), { event: 'attach', taskId: 't1', reservedUsd: 1 })).toMatchObject({
      ok: false,
    });
  });
});
