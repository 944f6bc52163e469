// The task ids a video row's submission answer named. When `id` and `task_id` differ the journal keeps
// both (in the row's `response`, which a video row has no other use for): polls try each before the
// task is taken for unknown to the gateway.
import { submittedTaskIds } from '../../core/retry.js';
import type { Item } from '../../journal/index.js';

/** Longer than any real task id: a body's longer text is not kept as one. */
const MAX_ID_LENGTH = 200;

/** The `response` an accepted video submission keeps: its ids when there is more than one, else nothing. */
export function answeredTaskIds(body: unknown): { task_ids: string[] } | undefined {
  const ids = submittedTaskIds(body).filter((id) => id.length <= MAX_ID_LENGTH);
  return ids.length > 1 ? { task_ids: ids } : undefined;
}

/** The ids to poll the row's task by: its task id first, then any other its submission answer named. */
export function taskIdsOf(item: Pick<Item, 'taskId' | 'response'>): string[] {
  const ids = item.taskId ? [item.taskId] : [];
  const kept = (item.response as { task_ids?: unknown } | null)?.task_ids;
  if (Array.isArray(kept)) for (const id of kept) if (typeof id === 'string' && !ids.includes(id)) ids.push(id);
  return ids;
}
