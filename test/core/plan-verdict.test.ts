import { describe, expect, it } from 'vitest';
import { CostHistory, drawJob, type ForecastRow, type SettledCost } from '../../src/core/forecast.js';
import { planVerdict, verdictLines } from '../../src/core/plan-verdict.js';
import { rowLikeness } from '../../src/core/row-likeness.js';

const row = (id: string, estimateUsd: number, reserveUsd: number): ForecastRow => ({
  ...rowLikeness('video', { model: 'video-fast', resolution: '720p', duration: 5 }),
  id,
  estimateUsd,
  reserveUsd,
});
const settled = (actualUsd: number): SettledCost => ({
  ...rowLikeness('video', { model: 'video-fast', resolution: '720p', duration: 5 }),
  estimateUsd: 1,
  boundUsd: 3,
  actualUsd,
});

/** The run's rule, row by row: sent when what the rows before it cost plus its bound fits. */
function runSends(costs: number[], bounds: number[], budget: number): number {
  let spent = 0;
  let deferred = 0;
  costs.forEach((cost, i) => {
    if (spent + bounds[i]! <= budget) spent += cost;
    else deferred++;
  });
  return deferred;
}

describe('plan verdict', () => {
  const six = Array.from({ length: 6 }, (_, i) => row(`v${i}`, 0.41, 1.06));

  it('fits at the bound when every bound fits at once', () => {
    const draws = drawJob(six, new CostHistory([]), { committedUsd: 0, budgetUsd: 6.36 });
    const verdict = planVerdict(six, draws, 6.36, 0);
    expect(verdict).toMatchObject({ verdict: 'fits_at_bound', chance: 1, rowsShort: 0, neverSentCount: 0 });
    expect(verdictLines(verdict, 6.36)[0]).toBe(
      'Every row fits the budget of $6.36 even at what the gateway can bill.',
    );
  });

  it('likely finishes when the spend of all rows but the last plus the last bound fits', () => {
    // No history: each row costs its estimate, 0.41; five of them plus the last bound: 2.05 + 1.06 = 3.11.
    const draws = drawJob(six, new CostHistory([]), { committedUsd: 0, budgetUsd: 3.11 });
    expect(planVerdict(six, draws, 3.11, 0)).toMatchObject({ verdict: 'likely_finishes', chance: 1 });
    const short = planVerdict(six, drawJob(six, new CostHistory([]), { committedUsd: 0, budgetUsd: 3.1 }), 3.1, 0);
    expect(short).toMatchObject({ verdict: 'likely_stops_short', chance: 0, rowsShort: 1, finishingBudgetUsd: 3.11 });
    expect(verdictLines(short, 3.1)[0]).toContain('stop short of the budget of $3.10 by about 1 row(s)');
    expect(verdictLines(short, 3.1)[0]).toContain('a budget of $3.11 finishes it at P90');
  });

  it('the chance follows the history: billed at 2x the estimate, the same budget stops short', () => {
    const history = new CostHistory([settled(2)]);
    const draws = drawJob(six, history, { committedUsd: 0, budgetUsd: 3.11 });
    const verdict = planVerdict(six, draws, 3.11, 0);
    expect(verdict.verdict).toBe('likely_stops_short');
    // 0.82 each: the run sends 0.82 x k + 1.06 <= 3.11 for k = 0, 1, 2, and defers the other three.
    expect(verdict.rowsShort).toBe(runSends(Array(6).fill(0.82), Array(6).fill(1.06), 3.11));
    expect(verdict.rowsShort).toBe(3);
  });

  it('a mixed history gives a chance between 0 and 1, matching the trials', () => {
    const history = new CostHistory([settled(1), settled(1), settled(1), settled(3)]);
    const rows = Array.from({ length: 10 }, (_, i) => row(`r${i}`, 0.41, 1.3));
    const budget = 6;
    const draws = drawJob(rows, history, { committedUsd: 0, budgetUsd: budget, seed: 3 });
    const verdict = planVerdict(rows, draws, budget, 0);
    expect(verdict.chance).toBeGreaterThan(0);
    expect(verdict.chance).toBeLessThan(1);
    let finished = 0;
    for (let t = 0; t < draws.trials; t++) if (draws.rowsShort[t] === 0) finished++;
    expect(verdict.chance).toBe(finished / draws.trials);
  });

  it('the chance is the share of jobs the run finishes: set against the odds worked out by hand', () => {
    // The run sends the second row once the first is billed, so it finishes when the first's bill plus the second's
    // bound fits: billed at its estimate, 0.41 + 1.3 = 1.71 <= 1.8; at 3x, 1.23 + 1.3 = 2.53 > 1.8.
    const rows = [row('a', 0.41, 1.3), row('b', 0.41, 1.3)];
    const judged = (ratios: number[]) =>
      planVerdict(
        rows,
        drawJob(rows, new CostHistory(ratios.map(settled)), { committedUsd: 0, budgetUsd: 1.8 }),
        1.8,
        0,
      );
    // Billed at 3x one time in four: finishes 3 times in 4.
    const likely = judged([1, 1, 1, 3]);
    expect(likely.verdict).toBe('likely_finishes');
    expect(likely.chance).toBeGreaterThan(0.72);
    expect(likely.chance).toBeLessThan(0.78);
    // Three times in four: finishes 1 time in 4, one row short.
    const short = judged([1, 3, 3, 3]);
    expect(short).toMatchObject({ verdict: 'likely_stops_short', rowsShort: 1, finishingBudgetUsd: 2.53 });
    expect(short.chance).toBeGreaterThan(0.22);
    expect(short.chance).toBeLessThan(0.28);
  });

  it('names each row whose bound alone exceeds what the budget leaves, with the budget that sends it', () => {
    const rows = [row('small', 0.2, 0.5), row('huge', 2, 4.5)];
    const draws = drawJob(rows, new CostHistory([]), { committedUsd: 1, budgetUsd: 5 });
    const verdict = planVerdict(rows, draws, 5, 1);
    expect(verdict).toMatchObject({
      verdict: 'likely_stops_short',
      neverSent: [{ id: 'huge', boundUsd: 4.5, budgetUsd: 5.5 }],
      neverSentCount: 1,
      rowsShort: 1,
    });
    expect(verdictLines(verdict, 5)[1]).toBe(
      'Row huge can never be sent under this budget: its bound is $4.500000; a budget of $5.50 sends it.',
    );
  });
});
