// Rows of the journal that the manifests of the job's last run no longer list ("orphaned"): what a run
// sends, what it counts, and which of them an operator may remove. The manifests of a run say what is
// wanted: a row in none of them is kept with its history but not sent, unless the operator names it.
import type { ItemState } from './states.js';

/**
 * Where a journal row stands against the manifests of the job's last ingest, stored as a small integer:
 * `listed` (0) in one of them; `orphaned` (1) in none, so never sent; `adopted` (2) in none, but the
 * operator's `gbatch retry <id>` asked for it, so it is sent as if listed. An ingest lists every row it
 * reads and orphans every listed row it does not read; an adopted row stays adopted until a manifest lists it.
 */
export type Listing = 'listed' | 'orphaned' | 'adopted';

export const LISTING_CODE: Readonly<Record<Listing, number>> = { listed: 0, orphaned: 1, adopted: 2 };

export function listingOf(code: number): Listing {
  return code === LISTING_CODE.orphaned ? 'orphaned' : code === LISTING_CODE.adopted ? 'adopted' : 'listed';
}

/** States whose rows a run sends (a deferred row is released first), when they are not orphaned. */
export const SENDABLE_STATES: readonly ItemState[] = ['pending', 'deferred'];

/**
 * States in which an orphaned row waits for an operator's word: a run neither sends it nor counts it
 * towards its exit code (it is none of this run's work). An orphaned row in any other state was sent:
 * it is polled, downloaded and settled as usual (it may be billed), and an uncertain one still waits for
 * `gbatch resolve`.
 */
export const ORPHAN_WAITING_STATES: readonly ItemState[] = [
  'pending',
  'deferred',
  'invalid',
  'failed',
  'rejected',
  'cancelled',
];

/** The one rule `run` and `plan` share: whether a run sends this row. */
export function wouldSend(state: ItemState, listing: Listing): boolean {
  return SENDABLE_STATES.includes(state) && listing !== 'orphaned';
}

/** The counts a run's exit code is decided on: the job's, without the orphaned rows that wait. */
export function countsForExit(
  counts: Readonly<Record<ItemState, number>>,
  orphaned: Readonly<Partial<Record<ItemState, number>>>,
): Record<ItemState, number> {
  const out = { ...counts };
  for (const state of ORPHAN_WAITING_STATES) out[state] = Math.max(0, out[state] - (orphaned[state] ?? 0));
  return out;
}

/** What `gbatch forget` needs to know of a row. */
export interface ForgetCandidate {
  id: string;
  state: ItemState;
  listing: Listing;
  attempts: number;
}

/** States of a row never sent that may be removed: nothing of it reached the gateway, nothing is billed. */
const FORGETTABLE_STATES: ReadonlySet<ItemState> = new Set(['pending', 'deferred', 'invalid', 'cancelled']);

/**
 * Why a row may not be removed from the journal (undefined: it may). Only an orphaned row never sent:
 * a row a manifest lists would come back with the next run, and a row ever sent keeps its history and
 * its money (the budget sums every row).
 */
export function forgetRefusal(row: ForgetCandidate | undefined, id: string): string | undefined {
  if (!row) return `no item '${id}'`;
  if (row.listing === 'listed')
    return `item '${id}' is in the job's manifests: remove its row from the manifest first (a run would add it back)`;
  if (!FORGETTABLE_STATES.has(row.state) || row.attempts > 0) {
    return `item '${id}' was sent (${row.state}, ${row.attempts} attempt(s)): it stays in the journal, where its history and its cost are kept`;
  }
  return undefined;
}
