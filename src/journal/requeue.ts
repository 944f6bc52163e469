// The `requeue` transition (failed|rejected -> pending) of `gbatch retry` and of the run's retry policy:
// the previous attempt's facts go into the event log, the row's per-attempt fields are cleared, and
// `attempts` keeps counting. `autoRetries` is the policy's count in the row's life: the policy's requeue
// records its retry's number, an operator's starts a new allowance.
import type { Item } from './item.js';
import type { Change } from './change.js';
import type { Operator } from '../core/operator.js';

/** Who sent the row again: the operator, or the run's --retry-failed policy (with the retry's number). */
export type RequeueBy = Operator | { by: 'retry-policy'; retry: number };

/**
 * What a row holds of a task's outcome (the task, its charge, its file), forgotten when the task is no
 * longer the row's: it is sent again (requeue) or the operator detaches the task.
 */
export const TASK_OUTCOME_FORGOTTEN = {
  taskId: null,
  actualUsd: null,
  totalTokens: null,
  finalResolution: null,
  gatewayChargeUsd: null,
  resultUrl: null,
  outputPath: null,
  sha256: null,
  bytes: null,
  unmetered: false,
} as const satisfies Change['patch'];

/** The change that sends a failed or rejected row again; pure. */
export function requeueChange(item: Item, by: RequeueBy = { by: 'operator' }): Change {
  return {
    id: item.id,
    event: 'requeue',
    patch: {
      ...TASK_OUTCOME_FORGOTTEN,
      response: null,
      responseStatus: null,
      requestId: null,
      lastError: null,
      reservedUsd: 0,
      autoRetries: by.by === 'retry-policy' ? by.retry : 0,
      downloadFailures: 0,
    },
    detail: {
      ...by,
      previous: {
        state: item.state,
        attempts: item.attempts,
        taskId: item.taskId,
        error: item.lastError,
        actualUsd: item.actualUsd,
        finalResolution: item.finalResolution,
      },
    },
  };
}
