// The operator's `requeue` (failed|rejected -> pending): the previous attempt's facts go into the event
// log, the row's per-attempt fields are cleared, and `attempts` keeps counting.
import type { Item } from './item.js';
import type { Change, Journal } from './sqlite/journal.js';

/** The change that sends a failed or rejected row again; pure. */
export function requeueChange(item: Item): Change {
  return {
    id: item.id,
    event: 'requeue',
    patch: {
      taskId: null, actualUsd: null, totalTokens: null, finalResolution: null, gatewayChargeUsd: null, resultUrl: null,
      response: null, responseStatus: null, requestId: null, outputPath: null, sha256: null, bytes: null,
      lastError: null, reservedUsd: 0, unmetered: false,
    },
    detail: {
      by: 'operator',
      previous: {
        state: item.state, attempts: item.attempts, taskId: item.taskId, error: item.lastError,
        actualUsd: item.actualUsd, finalResolution: item.finalResolution,
      },
    },
  };
}

/**
 * Requeues the rows `decide` picks, in one transaction that holds the write lock from the first read:
 * what `decide` saw is what is changed (each write is also compare-and-set on the state it read).
 */
export function requeueInOneTransaction<T>(journal: Journal, decide: () => { ids: readonly string[]; result: T }): T {
  return journal.db.transaction(() => {
    const { ids, result } = decide();
    journal.apply(ids.map((id) => requeueChange(journal.get(id)!)));
    return result;
  }).immediate();
}
