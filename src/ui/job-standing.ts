// Pure: what a job is doing, in the words of the jobs list: running with its runners, finished, stopped
// on budget, cancelled, or waiting for an operator, from its counts, runners, cancellation and last run.
import { EXIT_CODE } from '../core/exit-codes.js';
import type { ItemState } from '../core/states.js';

export type StandingKind =
  'running' | 'needs-operator' | 'stopped-on-budget' | 'cancelled' | 'finished' | 'stopped' | 'not-started';

export interface Standing {
  kind: StandingKind;
  /** One short phrase for the list. */
  label: string;
}

export interface StandingFacts {
  counts: Record<ItemState, number>;
  liveRunners: number;
  cancelled: boolean;
  /** The last run's exit code; null while it runs or when it was killed; undefined: never run. */
  lastExit: number | null | undefined;
  /** Orphaned rows that wait for the operator's word. */
  orphansWaiting: number;
}

const OPEN_STATES: readonly ItemState[] = ['pending', 'submitting', 'submitted', 'running', 'succeeded'];

export function jobStanding(facts: StandingFacts): Standing {
  const { counts } = facts;
  if (facts.liveRunners > 0)
    return { kind: 'running', label: `running (${facts.liveRunners} runner${facts.liveRunners === 1 ? '' : 's'})` };
  if (counts.uncertain > 0)
    return { kind: 'needs-operator', label: `needs an operator: ${counts.uncertain} uncertain` };
  if (facts.orphansWaiting > 0)
    return { kind: 'needs-operator', label: `needs an operator: ${facts.orphansWaiting} orphaned` };
  if (counts.deferred > 0 || facts.lastExit === EXIT_CODE.budget)
    return { kind: 'stopped-on-budget', label: `stopped on budget: ${counts.deferred} deferred` };
  if (facts.cancelled) return { kind: 'cancelled', label: 'cancelled' };
  const open = OPEN_STATES.reduce((n, state) => n + counts[state], 0);
  if (facts.lastExit === undefined && open > 0) return { kind: 'not-started', label: 'not started' };
  if (open === 0) {
    const failed = counts.failed + counts.rejected + counts.invalid;
    return { kind: 'finished', label: failed > 0 ? `finished, ${failed} failed or rejected` : 'finished' };
  }
  return {
    kind: 'stopped',
    label:
      facts.lastExit === null ? 'stopped (the last run did not record its end)' : `stopped (exit ${facts.lastExit})`,
  };
}
