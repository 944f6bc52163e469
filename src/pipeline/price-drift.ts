// The operator's line when the gateway charged a row more than the pricing table says: the model, the
// table's figure, the gateway's, and what the run does about it.
import { formatRatio } from '../core/charge-check.js';
import { formatUsd } from '../core/money.js';
import type { Item } from '../journal/index.js';

/** `earlier`: seen in an earlier run of the job (the run starts from it), rather than just now. */
export function priceDriftLine(
  item: Item,
  tableUsd: number,
  gatewayUsd: number,
  ratio: number,
  earlier = false,
): string {
  const then = Number.isFinite(ratio)
    ? `every ${earlier ? '' : 'later '}reservation is scaled by ${formatRatio(ratio)}`
    : `no ${earlier ? '' : 'later '}row fits the budget`;
  return (
    `${earlier ? 'an earlier run saw ' : ''}model '${item.model}' (item '${item.id}'): the gateway charged ${formatUsd(gatewayUsd)}, ` +
    `the pricing table says ${formatUsd(tableUsd)} (${formatRatio(ratio)}): ${earlier ? '' : "booked the gateway's charge; "}${then}; ` +
    "correct the pricing file (its group_ratio or the model's rates)"
  );
}
