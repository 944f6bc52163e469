// Reads a journal the way `status` and `report` do: read-only, while (or after) a runner uses it.
import { ITEM_KINDS, ITEM_STATES, type ItemState } from '../../src/core/states.js';
import type { Item } from '../../src/journal/index.js';
import { openSyncJournal } from './journal-raw.js';

export function readJournal(statePath: string): {
  items: Item[];
  byId: Map<string, Item>;
  counts: Record<ItemState, number>;
} {
  const journal = openSyncJournal(statePath, { readonly: true });
  try {
    const items = [...journal.iterate()];
    return { items, byId: new Map(items.map((i) => [i.id, i])), counts: journal.counts() };
  } finally {
    journal.close();
  }
}

export function statesById(statePath: string): Record<string, ItemState> {
  return Object.fromEntries(readJournal(statePath).items.map((i) => [i.id, i.state]));
}

/** Items stuck mid-submission: a clean stop must leave none. */
export function submittingIds(statePath: string): string[] {
  return readJournal(statePath)
    .items.filter((i) => i.state === 'submitting')
    .map((i) => i.id);
}

/** Rows by kind and state, tallied from the rows themselves (not the journal's grouped count). */
export function tallyByKind(items: readonly Item[]): Record<string, Record<string, number>> {
  const tally: Record<string, Record<string, number>> = {};
  for (const kind of ITEM_KINDS) tally[kind] = Object.fromEntries(ITEM_STATES.map((s) => [s, 0]));
  for (const item of items) tally[item.kind]![item.state]!++;
  return tally;
}

/** A tally with its empty states as undefined: journal metrics print no series for a state without rows. */
export function withoutEmpty(
  tally: Record<string, Record<string, number>>,
): Record<string, Record<string, number | undefined>> {
  return Object.fromEntries(
    Object.entries(tally).map(([kind, states]) => [
      kind,
      Object.fromEntries(Object.entries(states).map(([state, n]) => [state, n === 0 ? undefined : n])),
    ]),
  );
}
