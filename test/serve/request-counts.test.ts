// A live batch's request_counts only grow: a request that a run may still send again (a failed video under
// --retry-failed, a deferred or uncertain one) is not counted failed until the batch is final.
import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { requestCounts } from '../../src/serve/batch-journal.js';

const counts = (some: Partial<Record<ItemState, number>>): Record<ItemState, number> =>
  Object.fromEntries(ITEM_STATES.map((s) => [s, some[s] ?? 0])) as Record<ItemState, number>;

describe('requestCounts of a live batch', () => {
  it('does not fall when a failed video is sent again', () => {
    const failed = requestCounts(counts({ failed: 1, downloaded: 2 }), 4);
    const retried = requestCounts(counts({ pending: 1, downloaded: 2 }), 4);
    expect(retried.failed).toBeGreaterThanOrEqual(failed.failed);
    expect(retried.completed).toBeGreaterThanOrEqual(failed.completed);
  });

  it('counts as failed only what no run moves again: invalid and cancelled requests', () => {
    expect(
      requestCounts(counts({ invalid: 1, cancelled: 2, failed: 3, rejected: 4, deferred: 5, uncertain: 6 }), 21),
    ).toEqual({ total: 21, completed: 0, failed: 3 });
  });
});
