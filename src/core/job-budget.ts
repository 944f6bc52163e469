// The budget belongs to the job: stored in its journal by the first run that sets it, kept by every
// later run, replaced or lifted only by an explicit flag. Pure.
import { formatUsd, roundUsd } from './money.js';

export interface BudgetChoice {
  /** What the job's journal holds (undefined: no budget, or a new journal). */
  stored: number | undefined;
  /** `--budget` (or the job file's `budget`) of this run. */
  given: number | undefined;
  /** `--no-budget` of this run. */
  lift: boolean;
}

export interface BudgetInForce {
  budgetUsd: number | undefined;
  /** One line for the operator saying which budget is in force, or undefined when there is none to say. */
  note: string | undefined;
}

export function budgetInForce({ stored, given, lift }: BudgetChoice): BudgetInForce {
  if (lift) {
    return { budgetUsd: undefined, note: stored === undefined ? undefined : `budget lifted (--no-budget): was ${usd(stored)}; this job now has no budget` };
  }
  if (given !== undefined) {
    if (stored === undefined) return { budgetUsd: given, note: `budget ${usd(given)} in force; it is cumulative for this journal and kept by later runs` };
    if (stored === given) return { budgetUsd: given, note: `budget ${usd(given)} in force (cumulative for this journal)` };
    return { budgetUsd: given, note: `budget changed: ${usd(stored)} -> ${usd(given)} (cumulative for this journal)` };
  }
  if (stored !== undefined) {
    return { budgetUsd: stored, note: `budget ${usd(stored)} in force, kept from earlier runs of this journal (cumulative; --budget X replaces it, --no-budget lifts it)` };
  }
  return { budgetUsd: undefined, note: undefined };
}

/** Why a row was held back: what it needs and what is really left, at the moment it did not fit. */
export function deferralReason(budgetUsd: number, spend: { actualUsd: number; reservedUsd: number }, needUsd: number): string {
  const remaining = roundUsd(Math.max(0, budgetUsd - spend.actualUsd - spend.reservedUsd));
  return `needs up to ${usd(needUsd)} but ${usd(remaining)} of the ${usd(budgetUsd)} budget remains `
    + `(settled ${usd(spend.actualUsd)}, reserved ${usd(spend.reservedUsd)})`;
}

function usd(x: number): string {
  return formatUsd(x);
}
