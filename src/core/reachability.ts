// Pure: when consecutive refused connections mean the gateway is down rather than slow.
// A refused connect never reached the gateway; any HTTP answer (whatever its status) proves it is up.

/** Refused connections in a row, with no answer in between, after which the run stops. */
export const UNREACHABLE_AFTER = 3;

export interface Reachability {
  /** Connections refused since the last answer. */
  refusedInARow: number;
}

export type ReachabilityEvent = 'refused' | 'answered';

export const REACHABLE: Reachability = { refusedInARow: 0 };

/** The next state, and whether the gateway now counts as unreachable. */
export function observeReachability(
  state: Reachability,
  event: ReachabilityEvent,
  limit = UNREACHABLE_AFTER,
): { state: Reachability; unreachable: boolean } {
  const refusedInARow = event === 'answered' ? 0 : state.refusedInARow + 1;
  return { state: { refusedInARow }, unreachable: refusedInARow >= Math.max(1, limit) };
}
