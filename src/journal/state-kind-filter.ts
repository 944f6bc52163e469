// The filter by state and kind that every read of the job's rows takes: a run's pages (ItemFilter) and a row
// browser's (RowQuery) narrow it further each in their own way.
import type { ItemState } from '../core/states.js';

export interface StateKindFilter {
  states?: readonly ItemState[];
  kinds?: readonly string[];
}
