// The server-wide --budget's figures: every batch's settled and reserved money summed without float noise,
// the rest never below 0, and the line the server's log prints.
import { expect, test } from 'vitest';
import { serverBudget, serverBudgetText } from '../../src/core/server-budget.js';

test('spent and reserved are the sums of the batches; remaining is what is left of the budget', () => {
  const b = serverBudget(10, [
    { actualUsd: 0.1, reservedUsd: 0.2 },
    { actualUsd: 0.2, reservedUsd: 0 },
    { actualUsd: 3, reservedUsd: 1.5 },
  ]);
  expect(b).toEqual({ budgetUsd: 10, spentUsd: 3.3, reservedUsd: 1.7, remainingUsd: 5 });
  expect(serverBudgetText(b)).toBe(
    "the server's --budget: $3.300000 spent, $1.700000 reserved, $5.000000 remaining of $10.000000",
  );
});

test('nothing run yet: all of it remains; spent past the budget (a charge above the estimate): 0 remains', () => {
  expect(serverBudget(2.5, [])).toEqual({ budgetUsd: 2.5, spentUsd: 0, reservedUsd: 0, remainingUsd: 2.5 });
  expect(serverBudget(1, [{ actualUsd: 0.9, reservedUsd: 0.4 }]).remainingUsd).toBe(0);
});
