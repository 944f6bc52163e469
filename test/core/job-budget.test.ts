import { describe, expect, it } from 'vitest';
import { budgetInForce, deferralReason } from '../../src/core/job-budget.js';

describe('budgetInForce: the budget belongs to the job', () => {
  it('a new job with --budget stores it and says it is cumulative', () => {
    expect(budgetInForce({ stored: undefined, given: 5, lift: false })).toEqual({
      budgetUsd: 5, note: expect.stringMatching(/budget \$5\.000000 in force; it is cumulative for this journal/),
    });
  });

  it('a later run without --budget keeps the stored one, and says so', () => {
    const kept = budgetInForce({ stored: 5, given: undefined, lift: false });
    expect(kept.budgetUsd).toBe(5);
    expect(kept.note).toMatch(/kept from earlier runs.*cumulative.*--no-budget lifts it/);
  });

  it('--budget X replaces it: old -> new', () => {
    expect(budgetInForce({ stored: 5, given: 12, lift: false })).toEqual({ budgetUsd: 12, note: expect.stringMatching(/\$5\.000000 -> \$12\.000000/) });
  });

  it('--no-budget lifts it', () => {
    expect(budgetInForce({ stored: 5, given: undefined, lift: true })).toEqual({ budgetUsd: undefined, note: expect.stringMatching(/lifted/) });
  });

  it('no budget anywhere: none, nothing to say', () => {
    expect(budgetInForce({ stored: undefined, given: undefined, lift: false })).toEqual({ budgetUsd: undefined, note: undefined });
    expect(budgetInForce({ stored: undefined, given: undefined, lift: true })).toEqual({ budgetUsd: undefined, note: undefined });
  });

  it('a budget of 0 is a budget', () => {
    expect(budgetInForce({ stored: 0, given: undefined, lift: false }).budgetUsd).toBe(0);
  });
});

describe('deferralReason names what the row needs and what is really left', () => {
  it('budget - settled - reserved, at that moment', () => {
    expect(deferralReason(5, { actualUsd: 4.8, reservedUsd: 0.1 }, 0.25)).toBe(
      'needs up to $0.250000 but $0.100000 of the $5.000000 budget remains (settled $4.800000, reserved $0.100000)',
    );
  });

  it('never a negative remainder (a gateway beyond the bound overspent)', () => {
    expect(deferralReason(1, { actualUsd: 1.2, reservedUsd: 0 }, 0.3)).toMatch(/but \$0\.000000 of the \$1\.000000 budget remains/);
  });
});
