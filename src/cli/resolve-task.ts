// `gbatch resolve <id> --task-id T [--force]` and `--detach-task`: attaching the task an operator found
// for an uncertain row (never one the journal already holds for another row or attempt, unless forced),
// and undoing an attachment that was wrong.
import { attachConflict, planDetach, type TaskEvent } from '../core/task-attach.js';
import { createGatewayClient } from '../gateway/client.js';
import { GatewayHttpError } from '../gateway/errors.js';
import { BudgetExceededError, type Item, type JournalOperator, type JournalRun } from '../journal/index.js';
import { TASK_OUTCOME_FORGOTTEN } from '../journal/requeue.js';
import { applyDecision } from '../operate/guarded-apply.js';
import { gatewayAccess } from '../job/job.js';
import { UsageError } from '../job/options.js';

export interface AttachOptions {
  force: boolean;
  verify: boolean;
  baseUrl: string | undefined;
}

export async function attachTask(
  journal: JournalRun & JournalOperator,
  item: Item,
  taskId: string,
  options: AttachOptions,
): Promise<string> {
  const id = item.id;
  if (item.state !== 'uncertain')
    throw new UsageError(`item '${id}' is ${item.state}, not uncertain: --task-id applies to uncertain items only`);
  if (item.kind !== 'video')
    throw new UsageError(`item '${id}' is a ${item.kind} row: it has no task id; use --resubmit or --abandon`);
  if (!/^[\w.:-]{1,200}$/.test(taskId))
    throw new UsageError(`Expected \`--task-id\` to be a task id such as task_abc123, got \`${taskId}\``);
  const conflict = attachConflict(id, taskId, await journal.taskIdHolders(taskId), item.attempts);
  if (conflict && !options.force) throw new UsageError(`${conflict}; nothing changed`);
  if (options.verify) await verifyTask(taskId, options.baseUrl);
  // The bound booked now is the one a later --detach-task books again.
  await applyDecision(journal, item, {
    event: 'attach',
    // The operator's attach gives the task's download its tries anew.
    patch: { taskId, lastError: null, downloadFailures: 0 },
    detail: { by: 'operator', taskId, reservedUsd: item.reservedUsd, ...(conflict ? { forced: true } : {}) },
  });
  return `item '${id}': attached task ${taskId}; the next \`gbatch run\` polls and downloads it`;
}

export async function detachTask(journal: JournalRun & JournalOperator, item: Item): Promise<string> {
  const plan = planDetach(item, lastTaskEvent(await journal.events(item.id)));
  if (!plan.ok) throw new UsageError(plan.why);
  await applyDetach(journal, item, {
    event: 'detach',
    patch: {
      ...TASK_OUTCOME_FORGOTTEN,
      reservedUsd: plan.reservedUsd,
      lastError: {
        message: `task ${plan.taskId} detached by the operator: its own submission's outcome is unknown again`,
      },
    },
    detail: {
      by: 'operator',
      taskId: plan.taskId,
      previous: { state: item.state, actualUsd: item.actualUsd, outputPath: item.outputPath },
    },
  });
  const file = item.outputPath
    ? `; ${item.outputPath} still holds that task's video (the row's next download replaces it)`
    : '';
  return `item '${item.id}': task ${plan.taskId} detached; the row is uncertain again, its bound booked${file}`;
}

/** A database refuses a reservation past the job's budget: said in one line, nothing changed. */
async function applyDetach(
  journal: JournalRun,
  item: Item,
  change: Parameters<typeof applyDecision>[2],
): Promise<void> {
  try {
    await applyDecision(journal, item, change);
  } catch (err) {
    if (!(err instanceof BudgetExceededError)) throw err;
    throw new UsageError(
      `item '${item.id}': booking its bound again ($${err.askedUsd}) would pass the job's budget of $${err.budgetUsd}` +
        " (the journal refuses it): raise the job's budget with the next run's --budget first; nothing changed",
    );
  }
}

function lastTaskEvent(events: ReadonlyArray<{ event: string; detail: unknown }>): TaskEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const { event, detail } = events[i]!;
    if (event !== 'accept' && event !== 'attach') continue;
    const d = (detail ?? {}) as { taskId?: unknown; reservedUsd?: unknown };
    return {
      event,
      taskId: typeof d.taskId === 'string' ? d.taskId : undefined,
      reservedUsd: typeof d.reservedUsd === 'number' ? d.reservedUsd : undefined,
    };
  }
  return undefined;
}

async function verifyTask(taskId: string, baseUrl: string | undefined): Promise<void> {
  const access = gatewayAccess({ 'base-url': baseUrl }, process.env);
  const gateway = createGatewayClient({ ...access, backoff: { baseMs: 200, maxMs: 2000, maxAttempts: 3 } });
  try {
    await gateway.getTask(taskId);
  } catch (err) {
    if (err instanceof GatewayHttpError && err.status === 404) {
      throw new UsageError(
        `task ${taskId} is unknown to the gateway for this key (404); check the id, or pass --no-verify`,
      );
    }
    throw new UsageError(
      `could not verify task ${taskId}: ${(err as Error).message}; pass --no-verify to attach it anyway`,
    );
  }
}
