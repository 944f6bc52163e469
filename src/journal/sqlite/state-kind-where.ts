// The SQLite conditions of a state and kind filter, with their arguments in placeholder order.
import type { StateKindFilter } from '../state-kind-filter.js';

export function stateKindWhere(filter: StateKindFilter): { where: string[]; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.states) {
    where.push(`state IN (${filter.states.map(() => '?').join(', ')})`);
    args.push(...filter.states);
  }
  if (filter.kinds) {
    where.push(`kind IN (${filter.kinds.map(() => '?').join(', ')})`);
    args.push(...filter.kinds);
  }
  return { where, args };
}
