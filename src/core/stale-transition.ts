// A change that finds its row no longer where the writer last saw it: someone else decided first.
import type { ItemEvent, ItemState } from './states.js';

export class StaleTransitionError extends Error {
  readonly code = 'GBATCH_STALE_TRANSITION';
  constructor(
    readonly itemId: string,
    /** The change's event, or a note's name. */
    readonly event: ItemEvent | (string & {}),
    readonly expected: ItemState,
    readonly actual?: ItemState,
  ) {
    super(
      `item '${itemId}' left state '${expected}'${actual ? ` (now '${actual}')` : ''} before '${event}' was written`,
    );
    this.name = 'StaleTransitionError';
  }
}
