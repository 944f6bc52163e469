import { describe, expect, it } from 'vitest';
import { committedUsd, fitsBudget, headroomUsd } from '../../src/core/budget.js';

const spend = (reservedUsd: number, actualUsd: number) => ({ reservedUsd, actualUsd });

describe('budget rule', () => {
  it('without a budget everything fits and there is no headroom figure', () => {
    expect(fitsBudget(undefined, spend(1e6, 1e6), 1e6)).toBe(true);
    expect(headroomUsd(undefined, spend(1, 1))).toBeUndefined();
  });

  it('exactly equal to the budget fits; a nano-dollar more does not', () => {
    expect(fitsBudget(1, spend(0.25, 0.25), 0.5)).toBe(true);
    expect(fitsBudget(1, spend(0.25, 0.25), 0.500000001)).toBe(false);
    expect(fitsBudget(0, spend(0, 0), 0)).toBe(true);
    expect(fitsBudget(0, spend(0, 0), 0.000000001)).toBe(false);
  });

  it('is free of float noise: 0.1 + 0.2 committed fits a 0.3 budget', () => {
    expect(0.1 + 0.2).not.toBe(0.3); // the noise this guards against
    expect(committedUsd(spend(0.1, 0.2))).toBe(0.3);
    expect(fitsBudget(0.3, spend(0.1, 0.2), 0)).toBe(true);
    expect(fitsBudget(0.3, spend(0.1, 0), 0.2)).toBe(true);
    expect(fitsBudget(1, spend(0.7, 0.2), 0.1)).toBe(true); // 0.7 + 0.2 + 0.1 = 0.9999999999999999
    expect(headroomUsd(0.3, spend(0.1, 0.2))).toBe(0);
  });

  it('headroom is what is left, negative when already over (e.g. an overshoot)', () => {
    expect(headroomUsd(10, spend(2.5, 3.25))).toBe(4.25);
    expect(headroomUsd(1, spend(0, 1.2))).toBe(-0.2);
    expect(fitsBudget(1, spend(0, 1.2), 0)).toBe(false);
  });
});
