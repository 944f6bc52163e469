// What a row reserves before it is sent, and the request that must be sent for that to hold.
import { billBound, withOutputCap } from '../core/bound.js';
import { roundUsd } from '../core/money.js';
import type { PricingTable } from '../core/pricing.js';
import type { Item } from '../journal/index.js';

export interface Reservation {
  usd: number;
  /** The request to send: the row's own, or a copy with a default output cap (never written back). */
  request: Record<string, unknown>;
  /** The field of the default output cap added, if one was. */
  outputCapAdded?: string;
}

export interface ReservationMode {
  /** A --budget is in force: text rows without an output cap are sent with the default one. */
  budgeted: boolean;
  /** --budget-may-overrun: reserve the expected estimate only (a dearer final resolution can overrun). */
  mayOverrun: boolean;
}

/** By default the bound (what the gateway can bill); never less than the estimate. */
export function reservationFor(item: Item, pricing: PricingTable, mode: ReservationMode): Reservation {
  const capped = mode.budgeted ? withOutputCap(item.kind, item.request) : { request: item.request };
  const usd = mode.mayOverrun ? item.estimateUsd : roundUsd(Math.max(item.estimateUsd, billBound(item.kind, capped.request, pricing)));
  return { usd, request: capped.request, ...(capped.added !== undefined ? { outputCapAdded: capped.added } : {}) };
}
