// Rows by kind of work and state, as countsByKind() answers them: every kind and state present, zeros included.
import { ITEM_KINDS, ITEM_STATES, type ItemKind, type ItemState } from '../core/states.js';

export type KindCounts = Record<ItemKind, Record<ItemState, number>>;

export function zeroKindCounts(): KindCounts {
  const zeros = (): Record<ItemState, number> =>
    Object.fromEntries(ITEM_STATES.map((state) => [state, 0])) as Record<ItemState, number>;
  return Object.fromEntries(ITEM_KINDS.map((kind) => [kind, zeros()])) as KindCounts;
}

/** Adds a grouped count to `counts`; a kind or state this version does not know is left out. */
export function addKindCount(counts: KindCounts, kind: string, state: string, n: number): void {
  const ofKind = counts[kind as ItemKind] as Record<string, number> | undefined;
  if (ofKind && state in ofKind) ofKind[state] = Number(n);
}
