// A transition as the pipeline asks for it, and what the journal answers: shared by both adapters.
import type { JobFileBudget } from '../core/job-budget.js';
import type { ItemEvent, ItemState } from '../core/states.js';
import type { ItemPatch } from './item.js';
import { StaleTransitionError } from '../core/stale-transition.js';

export { StaleTransitionError };

export interface JobRecord {
  name: string;
  manifest: string;
  options: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  /** The budget in force for the job (kept across runs); undefined: none. */
  budgetUsd?: number;
  /** What the job file said of the budget at the last run (see budgetInForce); undefined: not recorded. */
  jobFileBudget?: JobFileBudget;
}

export interface Change {
  id: string;
  event: ItemEvent;
  patch?: ItemPatch;
  detail?: Record<string, unknown>;
  /**
   * The state the writer last saw the row in. When the row is no longer in it, someone else (an
   * operator's `resolve`) decided first: the change fails with StaleTransitionError, not as a bug.
   */
  expect?: ItemState;
  /** On a resend (`resubmit`): the operator checked that the attempt sent before was not billed (plan-changes.ts). */
  notBilled?: boolean;
}

export interface Spend {
  reservedUsd: number;
  actualUsd: number;
}

/** One applied change: the states it moved between, and when. */
export interface Move {
  from: ItemState;
  to: ItemState;
  at: number;
}
