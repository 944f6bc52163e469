// The gateway's group ratio as the job learns it: a settled video charged above the pricing table (chat
// answers carry no price, so only a video shows it). The journal keeps, per account and model, the row that
// showed the largest ratio; every runner of the job scales its reservations and text settlements by the
// largest ratio its account was seen charged, measured against the pricing table it runs with. Pure.
import { checkSettledVideo, type SettledVideo } from './charge-check.js';
import type { PricingTable } from './pricing.js';
import { snapshotPrice } from './settlement.js';

/** A settled video charged above the pricing table, as the journal keeps it (one per account and model). */
export interface SeenDrift extends SettledVideo {
  /** The gateway account it was charged to (accountId: its URL and key, never the key itself). */
  account: string;
  model: string;
  itemId: string;
  totalTokens: number;
  gatewayChargeUsd: number;
  /** The table's figure when it was seen, and gateway / table then (Infinity: the table said nothing was owed). */
  tableUsd: number;
  ratio: number;
}

/** The ratio in force for a runner: the largest its account was seen charged, against the table it runs with. */
export interface DriftInForce {
  ratio: number;
  seen: SeenDrift;
  /** The table's figure for the row that showed it, by the pricing table in force now. */
  tableUsd: number;
}

/**
 * The largest ratio the gateway charged `account` above `pricing`, over every model (a group ratio is the
 * account's: it applies to every model sent with it); undefined when none is above the table. Measured
 * against today's table, not the one in force when it was seen: a pricing file corrected since leaves none.
 */
export function driftInForce(
  seen: readonly SeenDrift[],
  account: string,
  pricing: PricingTable,
): DriftInForce | undefined {
  let most: DriftInForce | undefined;
  for (const row of seen) {
    if (row.account !== account || pricing.video[row.model] === undefined) continue;
    const check = checkSettledVideo(row, snapshotPrice('video', row.model, pricing));
    if (check?.driftRatio !== undefined && check.driftRatio > (most?.ratio ?? 1))
      most = { ratio: check.driftRatio, seen: row, tableUsd: check.tableUsd };
  }
  return most;
}
