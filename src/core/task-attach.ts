// Pure: whether an operator may attach a task id to an uncertain row (`resolve --task-id`), and how a
// wrong attachment is undone (`resolve --detach-task`). A task the journal already holds for another
// row (of this job or, on a database, of any job in it), or held for an earlier attempt of this one, is
// refused unless forced: attached, its video would be saved (and its charge booked) under the wrong row.
// A submission answer may name a task by two ids (`id` and `task_id`): either one is that task.

/** A row, current or past, that the journal records with a task id. */
export interface TaskIdHolder {
  itemId: string;
  /** The job the row is in, when it is another job of the same database (absent: this journal's job). */
  job?: string;
  /** The row holds it now (its task_id). */
  current: boolean;
  /** How it came: the gateway's answer to a submission, or an operator's attach; null for the current holder. */
  event: 'accept' | 'attach' | null;
  /** The attempt it came with, when the journal says. */
  attempt: number | null;
}

/** A journal row (of `job`, when another job's) found by a lookup of a task id. */
interface HolderRow {
  item_id: string;
  job?: string | null;
}

/**
 * The rows that hold `taskId` now: by their task id, or as the other id their submission's answer named
 * (a video row's `response.task_ids`). Shared by both adapters.
 */
export function currentHolders(
  rows: ReadonlyArray<HolderRow & { task_id: string | null; response: string | null }>,
  taskId: string,
): TaskIdHolder[] {
  const holders: TaskIdHolder[] = [];
  for (const row of rows) {
    if (row.task_id !== taskId && !namesTask(parsed(row.response)?.['task_ids'], taskId)) continue;
    holders.push({ itemId: row.item_id, ...jobOf(row), current: true, event: null, attempt: null });
  }
  return holders;
}

/** The accept and attach events whose detail names exactly `taskId`, as its task id or one of its answer's ids. */
export function eventHolders(
  rows: ReadonlyArray<HolderRow & { event: 'accept' | 'attach'; detail: string | null }>,
  taskId: string,
): TaskIdHolder[] {
  const holders: TaskIdHolder[] = [];
  for (const row of rows) {
    const detail = parsed(row.detail);
    if (!detail || (detail['taskId'] !== taskId && !namesTask(detail['taskIds'], taskId))) continue;
    holders.push({
      itemId: row.item_id,
      ...jobOf(row),
      current: false,
      event: row.event,
      attempt: typeof detail['attempt'] === 'number' ? detail['attempt'] : null,
    });
  }
  return holders;
}

function parsed(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function namesTask(ids: unknown, taskId: string): boolean {
  return Array.isArray(ids) && ids.includes(taskId);
}

function jobOf(row: HolderRow): { job?: string } {
  return typeof row.job === 'string' ? { job: row.job } : {};
}

/**
 * Why `taskId` may not be attached to `itemId` (without --force), or undefined when it may. The gateway's
 * own answer to the row's current attempt (`attempt`) is no conflict: that attempt is the uncertain one
 * (its task vanished, say, or the row was rewound), and the task is the one it is missing.
 */
export function attachConflict(
  itemId: string,
  taskId: string,
  holders: readonly TaskIdHolder[],
  attempt: number,
): string | undefined {
  const elsewhere = (h: TaskIdHolder) => h.job !== undefined || h.itemId !== itemId;
  const other = holders.find((h) => elsewhere(h) && h.current) ?? holders.find(elsewhere);
  const force = 'pass --force to attach it anyway';
  if (other) {
    const row = `item '${other.itemId}''s task${other.job !== undefined ? ` in job '${other.job}'` : ''}`;
    return other.current
      ? `task ${taskId} is already ${row}: attached here, its video would be saved under the wrong row; ${force}`
      : `task ${taskId} was ${row}${attemptOf(other)}: attached here, its video would be saved under the wrong row; ${force}`;
  }
  const own = holders.find((h) => !elsewhere(h) && !(h.event === 'accept' && h.attempt === attempt));
  if (own)
    return `task ${taskId} was this item's task${attemptOf(own)}, an attempt that already ended: attaching it again brings back that outcome; ${force}`;
  return undefined;
}

function attemptOf(holder: TaskIdHolder): string {
  return holder.attempt === null ? ' earlier' : ` in attempt ${holder.attempt}`;
}

/** The row's last task event (accept or attach), as `detach` judges it. */
export interface TaskEvent {
  event: 'accept' | 'attach';
  taskId: string | undefined;
  reservedUsd: number | undefined;
}

export interface DetachRow {
  id: string;
  state: string;
  taskId: string | null;
  reservedUsd: number;
  estimateUsd: number;
  actualUsd: number | null;
}

export type DetachPlan = { ok: true; taskId: string; reservedUsd: number } | { ok: false; why: string };

const DETACHABLE = new Set(['submitted', 'running', 'succeeded', 'downloaded', 'failed']);

/**
 * Undoing an operator's attach: the row goes back to `uncertain` with its own submission's bound booked
 * again (the one held when the task was attached), since that submission may still have been billed.
 * Only a task an operator attached is detached: one the gateway answered the row's submission with is its own.
 */
export function planDetach(row: DetachRow, last: TaskEvent | undefined): DetachPlan {
  if (row.taskId === null || !DETACHABLE.has(row.state)) {
    return {
      ok: false,
      why: `item '${row.id}' is ${row.state}${row.taskId === null ? ' and holds no task' : ''}: only a task attached with --task-id can be detached`,
    };
  }
  if (last?.event !== 'attach' || last.taskId !== row.taskId) {
    return {
      ok: false,
      why: `task ${row.taskId} is the gateway's answer to item '${row.id}''s own submission, not an attachment: nothing to detach`,
    };
  }
  // Attached before the attach event recorded the bound: the most the row can hold booked.
  const bound = last.reservedUsd ?? Math.max(row.reservedUsd, row.estimateUsd, row.actualUsd ?? 0);
  return { ok: true, taskId: row.taskId, reservedUsd: Math.max(bound, row.reservedUsd) };
}
