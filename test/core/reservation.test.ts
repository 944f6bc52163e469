import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { BudgetGuard } from '../../src/pipeline/budget-guard.js';
import { fitsBudget } from '../../src/core/budget.js';
import { reservationFor } from '../../src/core/reservation.js';
import { makeItem } from '../helpers/journal-fixtures.js';

/** video-mini 5 s, bounded at its dearest resolution (1080p): 245,025 tokens x $1.875 per 1M. */
const MINI_BOUND = 0.459421875;

describe('reservationFor: the bound, the request that keeps it, and the drift seen', () => {
  const video = makeItem({
    kind: 'video',
    model: 'video-mini',
    estimateUsd: 0.18417168,
    request: { model: 'video-mini', prompt: 'p', resolution: '720p' },
  });

  it('under a budget a video without a duration reserves its 5 s bound and is sent with duration 5', () => {
    expect(reservationFor(video, BUILTIN_PRICING, { budgeted: true, mayOverrun: false })).toEqual({
      usd: MINI_BOUND,
      request: { model: 'video-mini', prompt: 'p', resolution: '720p', duration: 5 },
      durationAdded: 'duration',
    });
  });

  it('without a budget the request goes as written and no drift scales it', () => {
    expect(reservationFor(video, BUILTIN_PRICING, { budgeted: false, mayOverrun: false, driftRatio: 2 })).toEqual({
      usd: MINI_BOUND,
      request: video.request,
    });
  });

  it('a drift of x2 seen: the reservation doubles (the bound, or the estimate under --budget-may-overrun)', () => {
    expect(reservationFor(video, BUILTIN_PRICING, { budgeted: true, mayOverrun: false, driftRatio: 2 }).usd).toBe(
      0.91884375,
    );
    expect(reservationFor(video, BUILTIN_PRICING, { budgeted: true, mayOverrun: true, driftRatio: 2 }).usd).toBe(
      0.36834336,
    );
  });
});

describe('BudgetGuard: the drift seen', () => {
  it('keeps the largest ratio and says when it is a new high', () => {
    const guard = new BudgetGuard(10, { reservedUsd: 0, actualUsd: 0 });
    expect(guard.driftRatio).toBe(1);
    expect(guard.observeDrift(2)).toBe(true);
    expect(guard.observeDrift(1.5)).toBe(false);
    expect(guard.observeDrift(2)).toBe(false);
    expect(guard.driftRatio).toBe(2);
  });

  it('an unbounded reservation (the table prices the row at $0 but the gateway billed) never fits a budget', () => {
    expect(fitsBudget(10, { reservedUsd: 0, actualUsd: 0 }, Infinity)).toBe(false);
    expect(fitsBudget(undefined, { reservedUsd: 0, actualUsd: 0 }, Infinity)).toBe(true);
  });
});
