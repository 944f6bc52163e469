// Pure: the server-wide --budget of `gbatch serve` as its operator reads it: what every batch together was
// billed (spent), what the gateway may still bill for requests in flight (reserved), and what is left.

import { formatUsd, roundUsd } from './money.js';

export interface BatchMoney {
  actualUsd: number;
  reservedUsd: number;
}

export interface ServerBudget {
  budgetUsd: number;
  spentUsd: number;
  reservedUsd: number;
  /** The budget less what is spent and reserved; never below 0. */
  remainingUsd: number;
}

export function serverBudget(budgetUsd: number, batches: readonly BatchMoney[]): ServerBudget {
  const spentUsd = roundUsd(batches.reduce((sum, b) => sum + b.actualUsd, 0));
  const reservedUsd = roundUsd(batches.reduce((sum, b) => sum + b.reservedUsd, 0));
  const remainingUsd = Math.max(0, roundUsd(budgetUsd - spentUsd - reservedUsd));
  return { budgetUsd, spentUsd, reservedUsd, remainingUsd };
}

/** "the server's --budget: $0.012000 spent, $0.500000 reserved, $9.488000 remaining of $10.000000" */
export function serverBudgetText(b: ServerBudget): string {
  return (
    `the server's --budget: ${formatUsd(b.spentUsd)} spent, ${formatUsd(b.reservedUsd)} reserved, ` +
    `${formatUsd(b.remainingUsd)} remaining of ${formatUsd(b.budgetUsd)}`
  );
}
