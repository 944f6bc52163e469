// The operator's line when the gateway charged a row more than the pricing table says: the model, the
// table's figure, the gateway's, and what the run does about it.
import { formatRatio } from '../core/charge-check.js';
import { formatUsd } from '../core/money.js';
import type { Item } from '../journal/index.js';

export function priceDriftLine(item: Item, tableUsd: number, gatewayUsd: number, ratio: number): string {
  const then = Number.isFinite(ratio) ? `every later reservation is scaled by ${formatRatio(ratio)}` : 'no later row fits the budget';
  return `model '${item.model}' (item '${item.id}'): the gateway charged ${formatUsd(gatewayUsd)}, the pricing table says `
    + `${formatUsd(tableUsd)} (${formatRatio(ratio)}): booked the gateway's charge; ${then}; `
    + "correct the pricing file (its group_ratio or the model's rates)";
}
