// Each row's last attempt's times, kept on the row by the move that reaches them (as the report's timeline folds them
// from the event log): a move into `submitting` starts an attempt afresh; a move into `submitted` (accept, attach),
// an answer or a task's success, and the first move into a finished state are stamped; leaving a finished state
// clears its stamp. By states, not events: PostgreSQL stamps them in a trigger that sees only the row.
import type { ItemState } from '../core/states.js';

/** The states the report counts a row finished in (its timeline's TERMINAL). */
export const FINISHED_STATES: ReadonlySet<string> = new Set(['downloaded', 'failed', 'rejected']);
const ANSWERED_FROM: ReadonlySet<string> = new Set(['submitting', 'submitted', 'running']);

/** The `column = expression` assignments of a move's times; each `?` takes the move's time. */
export function timeAssignments(from: ItemState, to: ItemState): string[] {
  const sets: string[] = [];
  if (to === 'submitting' && from !== 'submitting')
    sets.push('submitted_at = ?', 'accepted_at = NULL', 'succeeded_at = NULL');
  if (to === 'submitted' && from !== 'submitted') sets.push('accepted_at = ?');
  if (to === 'succeeded' && ANSWERED_FROM.has(from)) sets.push('succeeded_at = ?');
  sets.push(FINISHED_STATES.has(to) ? 'finished_at = COALESCE(finished_at, ?)' : 'finished_at = NULL');
  return sets;
}

/** The values of the assignments' `?`s. */
export function timeValues(assignments: readonly string[], now: number): number[] {
  return assignments.filter((a) => a.includes('?')).map(() => now);
}
