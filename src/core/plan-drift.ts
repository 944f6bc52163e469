// The drift `plan` judges with: the ratio the gateway was seen charging above the pricing table (seen-drift.ts).
// A run under a budget scales every reservation by it, and a row with no history is billed about its estimate
// times it; a plan that ignored it would promise what the run then does not do. Pure.
import { scaledReservation } from './charge-check.js';
import type { ForecastRow } from './forecast.js';
import type { PricingTable } from './pricing.js';
import { driftInForce, type SeenDrift } from './seen-drift.js';

/**
 * The ratio in force for `account` (1: none above the table). Without a known account, the largest any account
 * was seen charged: the plan errs toward the dearer side, as the budget does.
 */
export function planDriftRatio(seen: readonly SeenDrift[], account: string | undefined, pricing: PricingTable): number {
  const accounts = account === undefined ? new Set(seen.map((row) => row.account)) : new Set([account]);
  let most = 1;
  for (const each of accounts) most = Math.max(most, driftInForce(seen, each, pricing)?.ratio ?? 1);
  return most;
}

/** The rows as a budgeted run reserves them under the drift: each reservation scaled by it. */
export function reservedUnderDrift(rows: readonly ForecastRow[], ratio: number): ForecastRow[] {
  if (!(ratio > 1)) return [...rows];
  return rows.map((row) => ({ ...row, reserveUsd: scaledReservation(row.reserveUsd, ratio) }));
}
