// The pricing table's figure for a settled row against the charge the gateway reported for it. Pure.
// The gateway's live price list and group ratio are authoritative (spec 8.2, 8.3): when it reports a
// charge above the table's, that charge is what was billed, and the table is wrong by their ratio.

import { billingResolution } from './models.js';
import { formatUsd, roundUsd } from './money.js';
import { settleVideo, type PriceSnapshot } from './settlement.js';

/** One unit of the gateway's quota (500,000 quota = 1 USD): its reported charges are rounded to it. */
export const CHARGE_GRAIN_USD = 1 / 500_000;

export interface ChargeCheck {
  /** What the row is booked at: the gateway's charge when it is above the table's figure, else the table's. */
  bookedUsd: number;
  /**
   * gateway / table when the gateway charged more than the table beyond its rounding grain: the factor
   * the table under-prices by. Infinity when the table says nothing is owed. Undefined: no drift seen.
   */
  driftRatio?: number;
}

/**
 * A reported charge within one quota unit above the table's figure is the same price, rounded to the
 * gateway's unit: the table's exact figure is kept (the slack of every bound dwarfs a unit per row).
 */
export function checkCharge(tableUsd: number, gatewayUsd: number | undefined): ChargeCheck {
  if (gatewayUsd === undefined || roundUsd(gatewayUsd - tableUsd) <= CHARGE_GRAIN_USD) return { bookedUsd: tableUsd };
  return { bookedUsd: roundUsd(gatewayUsd), driftRatio: tableUsd > 0 ? gatewayUsd / tableUsd : Infinity };
}

/**
 * A reservation scaled by the ratio the gateway was seen charging above the table (1: none seen), so a
 * row sent after the drift was seen can still not be billed beyond what it reserved.
 */
export function scaledReservation(usd: number, driftRatio: number): number {
  if (!Number.isFinite(driftRatio)) return Infinity;
  return driftRatio > 1 ? roundUsd(usd * driftRatio) : usd;
}

/** "x2.000" for a log line or a note. */
export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `x${ratio.toFixed(3)}` : 'x∞';
}

/**
 * A text answer's usage gives tokens, not a price, so drift on text cannot be seen in it. Once the
 * gateway was seen charging above the table (a group ratio applies to every model of the account), a
 * text answer is booked at the table's price times that ratio, with a note saying so.
 */
export function textAtDrift(tableUsd: number, driftRatio: number): { usd: number; note?: string } {
  if (!(driftRatio > 1) || !Number.isFinite(driftRatio)) return { usd: tableUsd };
  return {
    usd: roundUsd(tableUsd * driftRatio),
    note: `booked at the pricing table's ${formatUsd(tableUsd)} ${formatRatio(driftRatio)}: the gateway was seen charging that much above the table`,
  };
}

/** A metered text answer as it was booked: its pricing-table figure, the ratio and the charge it was booked at. */
export interface TextBooking {
  tableUsd: number;
  ratio: number;
  usd: number;
}

/**
 * A text answer booked at one ratio, when a higher ratio has come in since (another runner saw the gateway charge
 * above the table before the answer arrived): what it is charged at now, with its note; undefined when its booking
 * stands.
 */
export function textCorrection(booking: TextBooking, ratioNow: number): { usd: number; note: string } | undefined {
  if (!(ratioNow > booking.ratio)) return undefined;
  const now = textAtDrift(booking.tableUsd, ratioNow);
  if (now.note === undefined || !(now.usd > booking.usd)) return undefined;
  return { usd: now.usd, note: now.note };
}

/** A settled video as the journal keeps it: what its table figure is computed from. */
export interface SettledVideo {
  totalTokens: number | null;
  finalResolution: string | null;
  resolution: string | null;
  hasReferenceVideo: boolean;
  gatewayChargeUsd: number | null;
}

/**
 * What `snapshot` prices a settled video at and how that compares with the gateway's reported charge
 * (checkCharge), by the rule it was settled with; undefined without both figures, or without the rate.
 */
export function checkSettledVideo(
  row: SettledVideo,
  snapshot: PriceSnapshot | null | undefined,
): (ChargeCheck & { tableUsd: number }) | undefined {
  if (row.totalTokens === null || row.gatewayChargeUsd === null || !snapshot?.video) return undefined;
  try {
    const { usd } = settleVideo({
      totalTokens: row.totalTokens,
      finalResolution: row.finalResolution ?? undefined,
      requestedResolution: billingResolution(row.resolution ?? undefined),
      hasReferenceVideo: row.hasReferenceVideo,
      snapshot,
    });
    return { tableUsd: usd, ...checkCharge(usd, row.gatewayChargeUsd) };
  } catch {
    return undefined; // the snapshot has no rate for the resolution: nothing to compare
  }
}
