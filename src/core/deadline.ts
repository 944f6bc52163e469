// Pure: the deadline rule. At (or after) the deadline no new request leaves; requests in flight get a
// bounded grace, then are cut.

/** Seconds requests in flight may still take once the deadline has passed (`--deadline-grace`). */
export const DEFAULT_DEADLINE_GRACE_S = 10;

/**
 * How long tasks in flight are still polled and downloaded after the deadline (`--drain`), before the
 * run stops waiting for them. Nothing new is submitted meanwhile.
 */
export const DEFAULT_DRAIN = '15m';

/**
 * The furthest a deadline may lie ahead: a year and a day. Further is a typo (`99999999999h`, past
 * what a Date can even hold), never a batch run's bound.
 */
export const MAX_DEADLINE_AHEAD_MS = 366 * 86_400_000;

export function deadlinePassed(deadlineAt: number | undefined, now: number): boolean {
  return deadlineAt !== undefined && now >= deadlineAt;
}

/** Milliseconds until the deadline (0 when it has passed), or undefined without one. */
export function untilDeadline(deadlineAt: number | undefined, now: number): number | undefined {
  return deadlineAt === undefined ? undefined : Math.max(0, deadlineAt - now);
}
