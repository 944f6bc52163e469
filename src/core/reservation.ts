// What a row reserves before it is sent, and the request that must be sent for that to hold.
import { billBound, boundedRequest } from './bound.js';
import { scaledReservation } from './charge-check.js';
import { roundUsd } from './money.js';
import type { PricingTable } from './pricing.js';
import type { ItemKind } from './states.js';

/** What a reservation reads of a row. */
export interface ReservedRow {
  kind: ItemKind;
  request: Record<string, unknown>;
  estimateUsd: number;
}

export interface Reservation {
  usd: number;
  /** The request to send: the row's own, or a copy with a default output cap or duration (never written back). */
  request: Record<string, unknown>;
  /** The field of the default output cap added to a text request, if one was. */
  outputCapAdded?: string;
  /** The field of the default duration added to a video request, if one was. */
  durationAdded?: string;
}

export interface ReservationMode {
  /**
   * A --budget is in force: text rows without an output cap, and videos without a duration, are sent with the default
   * one.
   */
  budgeted: boolean;
  /** --budget-may-overrun: reserve the expected estimate only (a dearer final resolution can overrun). */
  mayOverrun: boolean;
  /**
   * The ratio the gateway was seen charging above the pricing table (1: none): under a budget, reservations are scaled
   * by it.
   */
  driftRatio?: number;
}

/** By default the bound (what the gateway can bill); never less than the estimate. */
export function reservationFor(item: ReservedRow, pricing: PricingTable, mode: ReservationMode): Reservation {
  const sent = mode.budgeted ? boundedRequest(item.kind, item.request) : { request: item.request };
  const tableUsd = mode.mayOverrun
    ? item.estimateUsd
    : roundUsd(Math.max(item.estimateUsd, billBound(item.kind, sent.request, pricing)));
  const usd = mode.budgeted ? scaledReservation(tableUsd, mode.driftRatio ?? 1) : tableUsd;
  const added =
    sent.added === undefined
      ? {}
      : item.kind === 'video'
        ? { durationAdded: sent.added }
        : { outputCapAdded: sent.added };
  return { usd, request: sent.request, ...added };
}
