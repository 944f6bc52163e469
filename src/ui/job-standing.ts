// Pure: what a job is doing, in the words of the jobs list: running with its runners, waiting for an operator, or
// what happened as the job's standing (src/core/standing.ts) tells it; the list's kinds are its filters.
import { whatHappened, type RunRecord, type StandingKind as HappenedKind } from '../core/standing.js';
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
  /** The last run; undefined: never run. */
  lastRun: RunRecord | undefined;
  /** Orphaned rows that wait for the operator's word. */
  orphansWaiting: number;
}

const LIST_KIND: Record<HappenedKind, StandingKind> = {
  running: 'running',
  'not-started': 'not-started',
  finished: 'finished',
  budget: 'stopped-on-budget',
  balance: 'stopped',
  cancelled: 'cancelled',
  signal: 'stopped',
  deadline: 'stopped',
  crashed: 'stopped',
  stopped: 'stopped',
};

export function jobStanding(facts: StandingFacts): Standing {
  const { counts } = facts;
  const happened = whatHappened(facts);
  if (happened.kind === 'running') return { kind: 'running', label: happened.label };
  if (counts.uncertain > 0)
    return { kind: 'needs-operator', label: `needs an operator: ${counts.uncertain} uncertain` };
  if (facts.orphansWaiting > 0)
    return { kind: 'needs-operator', label: `needs an operator: ${facts.orphansWaiting} orphaned` };
  return { kind: LIST_KIND[happened.kind], label: happened.label };
}
