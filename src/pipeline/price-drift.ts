// The operator's line when the gateway charged a row more than the pricing table says: the model, the
// table's figure, the gateway's, and what the run does about it.
import { formatRatio } from '../core/charge-check.js';
import { formatUsd } from '../core/money.js';
import type { RunVoice } from './voice/run-voice.js';

/**
 * Who saw it: this run just now (`now`), an earlier run of the job (this run starts from it), or another
 * runner of the job while this one runs (its later reservations are scaled from now on).
 */
export type DriftWitness = 'now' | 'earlier' | 'another runner';

export function priceDriftLine(
  row: { id: string; model: string | null },
  tableUsd: number,
  gatewayUsd: number,
  ratio: number,
  witness: DriftWitness,
  voice: RunVoice,
): string {
  const later = witness === 'earlier' ? '' : 'later ';
  const then = Number.isFinite(ratio)
    ? `every ${later}reservation is scaled by ${formatRatio(ratio)}`
    : `no ${later}row fits the budget`;
  const who =
    witness === 'earlier' ? voice.earlierWitness : witness === 'another runner' ? 'another runner of the job saw ' : '';
  return (
    `${who}model '${row.model}' (${voice.item} '${row.id}'): the gateway charged ${formatUsd(gatewayUsd)}, ` +
    `the pricing table says ${formatUsd(tableUsd)} (${formatRatio(ratio)}): ${witness === 'now' ? "booked the gateway's charge; " : ''}${then}; ` +
    "correct the pricing file (its group_ratio or the model's rates)"
  );
}
