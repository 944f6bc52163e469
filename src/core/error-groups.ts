// The run's errors grouped by cause, capped: a 429 storm is one line with a count, not 2,000 lines.
import { printable } from './printable.js';
import type { ItemState } from './states.js';
import type { ErrorGroup } from './run-snapshot.js';

/** What the grouping reads of a row's error (the journal's ItemError has these). */
export interface RowError {
  status?: number;
  code?: string;
  type?: string;
  message: string;
}

const MAX_GROUPS = 16;
const MAX_MESSAGE = 200;
const MAX_CAUSE = 60;

/**
 * What a row's return from `submitting` to `pending` was: the gateway answered without keeping it and it
 * is sent again, unless the answer was a 401, which refuses the key, not the row, and stops the run.
 */
export function returnOutcome(error: RowError | null): 'retried' | 'key refused' {
  return error?.status === 401 ? 'key refused' : 'retried';
}

/** What a move into `state` with `error` is called in the view; undefined when it is no error. */
export function causeOf(from: ItemState | undefined, state: ItemState, error: RowError | null): string | undefined {
  if (!error) return undefined;
  const outcome =
    state === 'pending' && from === 'submitting'
      ? returnOutcome(error)
      : state === 'rejected'
        ? 'rejected'
        : state === 'failed'
          ? from === 'submitted' || from === 'running'
            ? 'task failed'
            : 'failed'
          : state === 'uncertain'
            ? 'uncertain'
            : state === 'deferred'
              ? 'deferred'
              : undefined;
  if (!outcome) return undefined;
  return errorCause(outcome, error);
}

/**
 * The cause of an error under `outcome`: its HTTP status and code, those it has; without either (a task's
 * fail reason, a budget deferral), the start of its message with the numbers folded, so that rows held
 * back for different amounts share one cause. The live view and the HTML report group by it.
 */
export function errorCause(outcome: string, error: RowError): string {
  const parts = causeParts(outcome, error);
  if (parts.length === 1) {
    const head = error.message
      .split(/[;:.,(]/)[0]!
      .slice(0, 40)
      .trim()
      .replace(/\d+/g, '#');
    // A message that starts with its outcome ("deferred by --budget: ...") is not prefixed with it again.
    return causeLine(head === outcome || head.startsWith(`${outcome} `) ? [head] : [outcome, head]);
  }
  return causeLine(parts);
}

/** What a failed poll or download is called in the view: the lane, then the status or code. */
export function laneCauseOf(lane: 'poll' | 'download', error: RowError): string {
  return causeLine(causeParts(`${lane} failed`, error));
}

/** The outcome, then the error's HTTP status and its code (or type), those it has. */
function causeParts(outcome: string, error: RowError): string[] {
  const code = error.code ?? error.type;
  return [
    outcome,
    ...(error.status !== undefined ? [String(error.status)] : []),
    ...(code !== undefined ? [code] : []),
  ];
}

function causeLine(parts: readonly string[]): string {
  return printable(parts.filter((p) => p !== '').join(' ')).slice(0, MAX_CAUSE);
}

export class ErrorGroups {
  private readonly groups = new Map<string, ErrorGroup>();

  add(cause: string, message: string, at: number): void {
    let group = this.groups.get(cause);
    if (!group) {
      // A new cause pushes out the one seen longest ago.
      if (this.groups.size >= MAX_GROUPS) this.evictOldest();
      group = { cause, count: 0, last_message: '', last_at: at };
      this.groups.set(cause, group);
    }
    this.groups.delete(cause); // the Map's order is the order of last sight
    this.groups.set(cause, group);
    group.count++;
    group.last_message = printable(message).slice(0, MAX_MESSAGE);
    group.last_at = at;
  }

  /** The most recently seen groups first. */
  list(limit = 8): ErrorGroup[] {
    return [...this.groups.values()]
      .reverse()
      .slice(0, limit)
      .map((g) => ({ ...g }));
  }

  private evictOldest(): void {
    const oldest = this.groups.keys().next();
    if (!oldest.done) this.groups.delete(oldest.value);
  }
}
