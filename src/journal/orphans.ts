// What the journal answers about orphaned rows (src/core/orphans.ts), shared by both adapters.
import type { Listing } from '../core/orphans.js';
import type { ItemState } from '../core/states.js';

/** The orphaned rows that wait for an operator (ORPHAN_WAITING_STATES): how many, by state, and the first ids. */
export interface OrphanSummary {
  total: number;
  counts: Partial<Record<ItemState, number>>;
  /** The first rows asked for, in manifest order. */
  rows: ListingRow[];
}

/** How a row the operator named stands: its listing, state and attempts. */
export interface ListingRow {
  id: string;
  listing: Listing;
  state: ItemState;
  attempts: number;
}

/** `gbatch forget`'s outcome: every named row removed, or none and why. */
export type ForgetOutcome = { ok: true; forgotten: string[] } | { ok: false; refusal: string };

/**
 * The SQL condition of a row a run may send or count as its work: not orphaned (listed, or adopted by the operator).
 */
export const NOT_ORPHANED_SQL = 'orphan <> 1';

/** The SQL condition of a row the operator adopted. */
export const ADOPTED_SQL = 'orphan = 2';
