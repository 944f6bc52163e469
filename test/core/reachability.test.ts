import { describe, expect, it } from 'vitest';
import {
  observeReachability,
  REACHABLE,
  UNREACHABLE_AFTER,
  type ReachabilityEvent,
} from '../../src/core/reachability.js';

function replay(events: ReachabilityEvent[], limit = UNREACHABLE_AFTER): boolean[] {
  let state = REACHABLE;
  return events.map((event) => {
    const next = observeReachability(state, event, limit);
    state = next.state;
    return next.unreachable;
  });
}

describe('observeReachability', () => {
  it('three refused connections in a row make the gateway unreachable', () => {
    expect(UNREACHABLE_AFTER).toBe(3);
    expect(replay(['refused', 'refused', 'refused'])).toEqual([false, false, true]);
  });

  it('any answer in between starts the count again', () => {
    expect(replay(['refused', 'refused', 'answered', 'refused', 'refused'])).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(replay(['refused', 'answered', 'refused', 'refused', 'refused'])).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
  });

  it('answers alone never trip it', () => {
    expect(replay(Array<ReachabilityEvent>(10).fill('answered'))).not.toContain(true);
  });

  it('the limit is a parameter (at least 1)', () => {
    expect(replay(['refused'], 1)).toEqual([true]);
    expect(replay(['refused'], 0)).toEqual([true]);
    expect(replay(['refused', 'refused', 'refused', 'refused', 'refused'], 5)).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
  });
});
