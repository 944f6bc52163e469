// Pure: the deadline rule. At (or after) the deadline no new request leaves; requests in flight get a
// bounded grace, then are cut.

/** Seconds requests in flight may still take once the deadline has passed (`--deadline-grace`). */
export const DEFAULT_DEADLINE_GRACE_S = 10;

export function deadlinePassed(deadlineAt: number | undefined, now: number): boolean {
  return deadlineAt !== undefined && now >= deadlineAt;
}

/** Milliseconds until the deadline (0 when it has passed), or undefined without one. */
export function untilDeadline(deadlineAt: number | undefined, now: number): number | undefined {
  return deadlineAt === undefined ? undefined : Math.max(0, deadlineAt - now);
}
