// Whether a row short of headroom waits or is deferred: it waits only on what may still settle.
import { describe, expect, it } from 'vitest';
import { waitingMayFreeHeadroom } from '../../src/core/budget-wait.js';

describe('waitingMayFreeHeadroom', () => {
  it('nothing reserved here and nothing of the job in flight: nothing will settle, the row is deferred', () => {
    expect(waitingMayFreeHeadroom({ ownLive: 0, jobInFlight: false })).toBe(false);
  });

  it("a row of this runner's that may settle (sent, or queued in its lane) keeps the row waiting", () => {
    expect(waitingMayFreeHeadroom({ ownLive: 1, jobInFlight: false })).toBe(true);
    expect(waitingMayFreeHeadroom({ ownLive: 3, jobInFlight: true })).toBe(true);
  });

  it("another runner's row in flight keeps the row waiting: its settlement may free headroom", () => {
    expect(waitingMayFreeHeadroom({ ownLive: 0, jobInFlight: true })).toBe(true);
  });
});
