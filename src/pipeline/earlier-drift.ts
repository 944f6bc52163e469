// What earlier runs of the job saw the gateway charge above the pricing table now in force. A run starts
// from it, so its first reservations are already scaled: the rows in flight before a run's own first
// overcharged row are not billed past their reservations again. Measured against today's table, not the
// rows' snapshots: a pricing file corrected since leaves no drift.
import { checkSettledVideo } from '../core/charge-check.js';
import { snapshotPrice, type PriceSnapshot } from '../core/settlement.js';
import type { PricingTable } from '../core/pricing.js';
import type { Item, JournalStore } from '../journal/index.js';

/** Settled rows read: the first of the job's settled rows, enough to see a group ratio, never the whole journal. */
export const EARLIER_DRIFT_SAMPLE = 512;

export interface EarlierDrift {
  ratio: number;
  item: Item;
  tableUsd: number;
  gatewayUsd: number;
}

export async function earlierDrift(journal: JournalStore, pricing: PricingTable): Promise<EarlierDrift | undefined> {
  let most: EarlierDrift | undefined;
  for (const item of await journal.list(['succeeded', 'downloaded'], EARLIER_DRIFT_SAMPLE)) {
    if (item.kind !== 'video' || item.gatewayChargeUsd === null || pricing.video[item.model] === undefined) continue;
    const check = checkSettledVideo(item, snapshotPrice('video', item.model, pricing) as PriceSnapshot);
    if (check?.driftRatio !== undefined && check.driftRatio > (most?.ratio ?? 1)) {
      most = { ratio: check.driftRatio, item, tableUsd: check.tableUsd, gatewayUsd: item.gatewayChargeUsd };
    }
  }
  return most;
}
