// The budget rule: settled + reserved + the next reservation never exceeds --budget.
import { roundUsd } from './money.js';

export interface SpendState {
  reservedUsd: number;
  actualUsd: number;
}

export function committedUsd(spend: SpendState): number {
  return roundUsd(spend.reservedUsd + spend.actualUsd);
}

export function fitsBudget(budgetUsd: number | undefined, spend: SpendState, estimateUsd: number): boolean {
  if (budgetUsd === undefined) return true;
  // A row the table prices at $0 that the gateway was seen billing: no budget can say what it costs.
  if (!Number.isFinite(estimateUsd)) return false;
  return roundUsd(committedUsd(spend) + estimateUsd) <= budgetUsd;
}

export function headroomUsd(budgetUsd: number | undefined, spend: SpendState): number | undefined {
  return budgetUsd === undefined ? undefined : roundUsd(budgetUsd - committedUsd(spend));
}
