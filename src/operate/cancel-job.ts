// The operator's cancel (`gbatch cancel`, the dashboard's cancel): the job's cancellation recorded (every
// runner stops sending; the journal refuses any later intent), then its pending and deferred rows cancelled.
import { COMMAND_LINE, type Operator } from '../core/operator.js';
import type { JobCancel, JournalOperator, JournalRun } from '../journal/index.js';
import { UsageError } from '../job/options.js';
import { cancelRows } from '../pipeline/index.js';

export async function cancelJob(
  journal: JournalRun & JournalOperator,
  reason: string,
  operator: Operator = COMMAND_LINE,
): Promise<{ cancel: JobCancel; cancelled: { pending: number; deferred: number } }> {
  if (!(await journal.getJob())) throw new UsageError(`${journal.location}: no job in this journal yet (has it run?)`);
  const cancel = (await journal.setJobCancel(reason))!;
  return { cancel, cancelled: await cancelRows(journal, cancel, operator) };
}
