import { describe, expect, it } from 'vitest';
import { attachConflict, eventHolders, planDetach, type DetachRow } from '../../src/core/task-attach.js';

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
