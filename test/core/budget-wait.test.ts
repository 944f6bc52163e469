// Whether a row short of headroom waits or is deferred: it waits only on what may still settle.
import { describe, expect, it } from 'vitest';
import { waitingMayFreeHeadroom, type HeadroomOutlook } from '../../src/core/budget-wait.js';

const nothing: HeadroomOutlook = { sent: 0, unsent: 0, laneMoves: true, jobInFlight: false };

describe('waitingMayFreeHeadroom', () => {
  it('nothing reserved here and nothing of the job in flight: nothing will settle, the row is deferred', () => {
    expect(waitingMayFreeHeadroom(nothing)).toBe(false);
    expect(waitingMayFreeHeadroom({ ...nothing, laneMoves: false })).toBe(false);
  });

  it('a row sent here, or any row of the job in flight at another runner, may still settle: the row waits', () => {
    expect(waitingMayFreeHeadroom({ ...nothing, sent: 1 })).toBe(true);
    expect(waitingMayFreeHeadroom({ ...nothing, sent: 1, laneMoves: false })).toBe(true);
    expect(waitingMayFreeHeadroom({ ...nothing, jobInFlight: true })).toBe(true);
    expect(waitingMayFreeHeadroom({ ...nothing, jobInFlight: true, laneMoves: false })).toBe(true);
  });

  it('rows reserved here but not sent count while the lane moves: a slot is held by a row going ahead', () => {
    expect(waitingMayFreeHeadroom({ ...nothing, unsent: 3 })).toBe(true);
  });

  it('rows queued behind slots that all wait for headroom never move: their reservations free nothing', () => {
    expect(waitingMayFreeHeadroom({ ...nothing, unsent: 3, laneMoves: false })).toBe(false);
    expect(waitingMayFreeHeadroom({ ...nothing, unsent: 3, laneMoves: false, sent: 1 })).toBe(true);
    expect(waitingMayFreeHeadroom({ ...nothing, unsent: 3, laneMoves: false, jobInFlight: true })).toBe(true);
  });
});
