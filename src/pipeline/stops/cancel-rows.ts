// A job's cancellation applied to its rows: pending and deferred rows become cancelled (never sent).
// `gbatch cancel` and `gbatch serve`'s batch cancel both do it.
import type { JobCancel, JournalRun } from '../../journal/index.js';
import { cancelledError } from './cancel-watch.js';
import { COMMAND_LINE, type Operator } from '../../core/operator.js';

/** Pending and deferred rows become cancelled, read and written under one write lock. */
export async function cancelRows(
  journal: JournalRun,
  cancel: JobCancel,
  operator: Operator = COMMAND_LINE,
): Promise<{ pending: number; deferred: number }> {
  return journal.decideAndApply(async (reader) => {
    const rows = [];
    for await (const item of reader.iterate({ states: ['pending', 'deferred'] })) rows.push(item);
    const changes = rows.map((item) => ({
      id: item.id,
      event: 'cancel' as const,
      expect: item.state,
      patch: { reservedUsd: 0, lastError: cancelledError(cancel) },
      detail: { ...operator, reason: cancel.reason },
    }));
    return {
      changes,
      result: {
        pending: rows.filter((r) => r.state === 'pending').length,
        deferred: rows.filter((r) => r.state === 'deferred').length,
      },
    };
  });
}
