import { describe, expect, it } from 'vitest';
import { budgetInForce, deferralReason, fileBudgetOf, fileBudgetText } from '../../src/core/job-budget.js';

describe('budgetInForce: the budget belongs to the job', () => {
  it('a new job with --budget stores it and says it is cumulative', () => {
    expect(budgetInForce({ stored: undefined, given: 5, lift: false })).toEqual({
      budgetUsd: 5,
      note: expect.stringMatching(/budget \$5\.000000 in force; it is cumulative for this journal/),
      fileBudget: 'unset',
    });
  });

  it('a later run without --budget keeps the stored one, and says so', () => {
    const kept = budgetInForce({ stored: 5, given: undefined, lift: false });
    expect(kept.budgetUsd).toBe(5);
    expect(kept.note).toMatch(/kept from earlier runs.*cumulative.*--no-budget lifts it/);
  });

  it('--budget X replaces it: old -> new', () => {
    expect(budgetInForce({ stored: 5, given: 12, lift: false })).toEqual({
      budgetUsd: 12,
      note: expect.stringMatching(/\$5\.000000 -> \$12\.000000/),
      fileBudget: 'unset',
    });
  });

  it('--no-budget lifts it', () => {
    expect(budgetInForce({ stored: 5, given: undefined, lift: true })).toEqual({
      budgetUsd: undefined,
      note: expect.stringMatching(/lifted/),
      fileBudget: 'unset',
    });
  });

  it('no budget anywhere: none, nothing to say', () => {
    expect(budgetInForce({ stored: undefined, given: undefined, lift: false })).toEqual({
      budgetUsd: undefined,
      note: undefined,
      fileBudget: 'unset',
    });
    expect(budgetInForce({ stored: undefined, given: undefined, lift: true })).toEqual({
      budgetUsd: undefined,
      note: undefined,
      fileBudget: 'unset',
    });
  });

  it('a budget of 0 is a budget', () => {
    expect(budgetInForce({ stored: 0, given: undefined, lift: false }).budgetUsd).toBe(0);
  });
});

describe("budgetInForce: a job file's budget against flags and the journal", () => {
  it('applies when the job is created, and is recorded', () => {
    expect(budgetInForce({ stored: undefined, given: undefined, lift: false, created: true, file: 100 })).toEqual({
      budgetUsd: 100,
      note: expect.stringMatching(/\$100\.000000 in force, from the job file/),
      fileBudget: 100,
    });
  });

  it("never over a later explicit --budget: unchanged in the file, it does not replace the journal's (both ways)", () => {
    for (const [stored, file] of [
      [180, 100],
      [50, 100],
    ] as const) {
      const kept = budgetInForce({ stored, given: undefined, lift: false, created: false, file, fileSeen: file });
      expect(kept.budgetUsd).toBe(stored);
      expect(kept.note).toMatch(
        /job file's budget \$100\.000000 is unchanged since it last applied, so it does not replace it/,
      );
      expect(kept.fileBudget).toBe(100);
    }
  });

  it("an explicit --budget or --no-budget wins over the file, and says so; the file's value is recorded as seen", () => {
    const given = budgetInForce({ stored: 100, given: 180, lift: false, created: false, file: 100, fileSeen: 100 });
    expect(given).toEqual({
      budgetUsd: 180,
      note: expect.stringMatching(
        /\$100\.000000 -> \$180\.000000.*job file's budget \$100\.000000 is not applied: an explicit flag wins/,
      ),
      fileBudget: 100,
    });
    expect(
      budgetInForce({ stored: 100, given: undefined, lift: true, created: false, file: 100, fileSeen: 100 }),
    ).toMatchObject({ budgetUsd: undefined, fileBudget: 100 });
    expect(budgetInForce({ stored: undefined, given: 7, lift: false, created: true, file: 100 }).budgetUsd).toBe(7);
  });

  it('applies again when the file changes its value, or lifts it with "no-budget"', () => {
    expect(
      budgetInForce({ stored: 180, given: undefined, lift: false, created: false, file: 200, fileSeen: 100 }),
    ).toEqual({
      budgetUsd: 200,
      note: expect.stringMatching(/budget changed in the job file: \$180\.000000 -> \$200\.000000/),
      fileBudget: 200,
    });
    expect(
      budgetInForce({ stored: 180, given: undefined, lift: false, created: false, file: 'none', fileSeen: 100 }),
    ).toMatchObject({
      budgetUsd: undefined,
      note: expect.stringMatching(/lifted by the job file/),
      fileBudget: 'none',
    });
  });

  it('a budget removed from the file lifts nothing; a journal that never recorded the file keeps its own', () => {
    expect(
      budgetInForce({ stored: 180, given: undefined, lift: false, created: false, file: 'unset', fileSeen: 100 }),
    ).toMatchObject({ budgetUsd: 180, fileBudget: 'unset' });
    expect(
      budgetInForce({ stored: 180, given: undefined, lift: false, created: false, file: 100, fileSeen: undefined }),
    ).toMatchObject({ budgetUsd: 180, fileBudget: 100 });
    // ... and where it had none, the file's value caps it.
    expect(
      budgetInForce({
        stored: undefined,
        given: undefined,
        lift: false,
        created: false,
        file: 100,
        fileSeen: undefined,
      }),
    ).toMatchObject({ budgetUsd: 100, note: expect.stringMatching(/from the job file/) });
  });

  it('the record round-trips as text', () => {
    for (const value of [100, 0, 2.5, 'none', 'unset'] as const)
      expect(fileBudgetOf(fileBudgetText(value))).toBe(value);
    expect(fileBudgetOf(null)).toBeUndefined();
    expect(fileBudgetOf('nonsense')).toBeUndefined();
  });
});

describe('deferralReason names what the row needs and what is really left', () => {
  it('budget - settled - reserved, at that moment', () => {
    expect(deferralReason(5, { actualUsd: 4.8, reservedUsd: 0.1 }, 0.25)).toBe(
      'needs up to $0.250000 but $0.100000 of the $5.000000 budget remains (settled $4.800000, reserved $0.100000)',
    );
  });

  it('never a negative remainder (a gateway beyond the bound overspent)', () => {
    expect(deferralReason(1, { actualUsd: 1.2, reservedUsd: 0 }, 0.3)).toMatch(
      /but \$0\.000000 of the \$1\.000000 budget remains/,
    );
  });
});
