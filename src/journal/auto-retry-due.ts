// The failed and rejected rows the retry policy sends again on its own when the next run starts
// (src/core/auto-retry.ts): the same facts the run's requeue reads, so what a notification or a view
// says no one need retry by hand is what the next run does send.
import { retriedFromEarlierRun, type AutoRetryPolicy, type LeftRow } from '../core/auto-retry.js';
import type { Item } from './item.js';
import type { JournalQueries } from './store.js';

/** A row an earlier run left, as the policy sees it; `abandoned`: the ids abandoned while uncertain. */
export function leftRowOf(item: Item, abandoned: ReadonlySet<string>): LeftRow {
  return {
    kind: item.kind,
    state: item.state,
    taskId: item.taskId,
    errorStatus: item.lastError?.status,
    reservedUsd: item.reservedUsd,
    abandonedWhileUncertain: abandoned.has(item.id),
    autoRetries: item.autoRetries,
    downloadForfeited: item.downloadFailures > 0,
  };
}

/** The failed and rejected rows of `left` the policy sends again (orphaned rows are no run's: leave them out). */
export async function dueForAutoRetry(
  left: readonly Item[],
  reader: Pick<JournalQueries, 'abandonedWhileUncertain'>,
  policy: Pick<AutoRetryPolicy, 'retryFailed'>,
): Promise<Item[]> {
  if (policy.retryFailed <= 0) return [];
  const abandoned = await reader.abandonedWhileUncertain(
    left.filter((item) => item.state === 'failed').map((item) => item.id),
  );
  return left.filter((item) => retriedFromEarlierRun(leftRowOf(item, abandoned), policy));
}

/** How many failed and rejected rows the next run sends again on its own under `policy`. */
export async function autoRetryDue(
  reader: Pick<JournalQueries, 'iterate' | 'abandonedWhileUncertain'>,
  policy: Pick<AutoRetryPolicy, 'retryFailed'>,
): Promise<{ failed: number; rejected: number }> {
  if (policy.retryFailed <= 0) return { failed: 0, rejected: 0 };
  const left: Item[] = [];
  for await (const item of reader.iterate({ states: ['failed', 'rejected'], notOrphaned: true })) left.push(item);
  const due = await dueForAutoRetry(left, reader, policy);
  return {
    failed: due.filter((item) => item.state === 'failed').length,
    rejected: due.filter((item) => item.state === 'rejected').length,
  };
}
