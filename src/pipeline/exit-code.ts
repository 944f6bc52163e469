// The exit code of `run` (runner contract), decided from the journal's counts and how the run ended.
import { EXIT_CODE } from '../core/exit-codes.js';
import type { ItemState } from '../core/states.js';

/** The codes a run's outcome decides (the others end a run by an error: src/api/error-exit.ts). */
export const EXIT = {
  ok: EXIT_CODE.ok,
  someFailed: EXIT_CODE.someFailed,
  usage: EXIT_CODE.usage,
  budget: EXIT_CODE.budget,
  uncertain: EXIT_CODE.uncertain,
  inFlight: EXIT_CODE.inFlight,
} as const;

export interface RunEnding {
  counts: Record<ItemState, number>;
  /** The run stopped before all work was done: --no-wait, --deadline, a signal, or retries exhausted. */
  stoppedEarly: boolean;
}

/**
 * One code for many facts, by precedence (EXIT_PRECEDENCE): an operator decision (4) outranks money (3),
 * which outranks "come back later" (75), which outranks finished-with-failures (1).
 */
export function exitCodeFor({ counts, stoppedEarly }: RunEnding): number {
  if (needsOperatorDecision(counts)) return EXIT.uncertain;
  if (counts.deferred > 0) return EXIT.budget;
  const unfinished = counts.pending + counts.submitting + counts.submitted + counts.running + counts.succeeded;
  if (unfinished > 0 || stoppedEarly) return unfinished > 0 ? EXIT.inFlight : exitForFinished(counts);
  return exitForFinished(counts);
}

function exitForFinished(counts: Record<ItemState, number>): number {
  return counts.failed + counts.rejected + counts.invalid > 0 ? EXIT.someFailed : EXIT.ok;
}

/** Exit 4's rule, shared with `status`'s needs_attention: a row only an operator may decide (uncertain). */
export function needsOperatorDecision(counts: Pick<Record<ItemState, number>, 'uncertain'>): boolean {
  return counts.uncertain > 0;
}
