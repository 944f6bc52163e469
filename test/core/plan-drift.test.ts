// The plan judges with the drift the journal has seen: a gateway seen billing twice the table makes a row with no
// history cost twice its estimate and every reservation twice its bound, as the run will. A seeded drift: a
// video-mini row at 720p that the built-in table prices at $0.18417168, charged $0.36834336.
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { CostHistory, drawJob, forecastOf, type ForecastRow } from '../../src/core/forecast.js';
import { planDriftRatio, reservedUnderDrift } from '../../src/core/plan-drift.js';
import { planVerdict } from '../../src/core/plan-verdict.js';
import type { SeenDrift } from '../../src/core/seen-drift.js';

const TABLE_USD = 0.18417168;

function seen(account: string, gatewayChargeUsd: number): SeenDrift {
  return {
    account,
    model: 'video-mini',
    itemId: `v-${account}`,
    totalTokens: 108_900,
    resolution: '720p',
    finalResolution: '720p',
    hasReferenceVideo: false,
    tableUsd: TABLE_USD,
    gatewayChargeUsd,
    ratio: gatewayChargeUsd / TABLE_USD,
  };
}

const rows: ForecastRow[] = Array.from({ length: 4 }, (_, i) => ({
  id: `v${i}`,
  kind: 'video',
  model: 'video-mini',
  resolution: '720p',
  durationS: 5,
  sizeBucket: 0,
  estimateUsd: 0.2,
  reserveUsd: 0.5,
}));

describe('planDriftRatio: the drift a plan judges with', () => {
  it("the account's own: x2 seen for it; none for an account that saw none", () => {
    const drifts = [seen('acct', 2 * TABLE_USD), seen('other', 3 * TABLE_USD)];
    expect(planDriftRatio(drifts, 'acct', BUILTIN_PRICING)).toBeCloseTo(2, 9);
    expect(planDriftRatio(drifts, 'quiet', BUILTIN_PRICING)).toBe(1);
    expect(planDriftRatio([], 'acct', BUILTIN_PRICING)).toBe(1);
  });

  it('no account known: the largest any account was seen charged', () => {
    const drifts = [seen('acct', 2 * TABLE_USD), seen('other', 3 * TABLE_USD)];
    expect(planDriftRatio(drifts, undefined, BUILTIN_PRICING)).toBeCloseTo(3, 9);
  });
});

describe('the forecast and the verdict under a seeded drift of x2', () => {
  const ratio = planDriftRatio([seen('acct', 2 * TABLE_USD)], 'acct', BUILTIN_PRICING);
  const none = new CostHistory([]);

  it('a row with no history costs its estimate times the drift', () => {
    const plain = forecastOf(drawJob(rows, none, { committedUsd: 0 }));
    const drifted = forecastOf(drawJob(rows, none, { committedUsd: 0, driftRatio: ratio }));
    expect(plain.p50Usd).toBeCloseTo(0.8, 9);
    expect(drifted.p50Usd).toBeCloseTo(1.6, 6);
    expect(drifted.p90Usd).toBeCloseTo(1.6, 6);
    expect(drifted.basisRows).toBe(0);
  });

  it('rows with history keep their learned ratios: the drift is in what they were billed', () => {
    const history = new CostHistory(
      Array.from({ length: 10 }, () => ({ ...rows[0]!, estimateUsd: 0.2, boundUsd: 0.5, actualUsd: 0.3 })),
    );
    const drifted = forecastOf(drawJob(rows, history, { committedUsd: 0, driftRatio: ratio }));
    expect(drifted.p50Usd).toBeCloseTo(1.2, 6);
    expect(drifted.basisRows).toBe(10);
  });

  it('the verdict reserves each bound times the drift: a budget that fits every bound on the table does not', () => {
    const budget = 2.1; // four bounds of $0.50 fit; four of $1.00 do not, all at once
    const plain = planVerdict(rows, drawJob(rows, none, { committedUsd: 0, budgetUsd: budget }), budget, 0);
    expect(plain.verdict).toBe('fits_at_bound');
    const reserved = reservedUnderDrift(rows, ratio);
    expect(reserved.map((r) => r.reserveUsd)).toEqual(rows.map(() => expect.closeTo(1, 6)));
    const draws = drawJob(reserved, none, { committedUsd: 0, budgetUsd: budget, driftRatio: ratio });
    const drifted = planVerdict(reserved, draws, budget, 0);
    // Each row costs $0.40: the fourth needs $1.20 settled + its $1.00 bound = $2.20 > $2.10.
    expect(drifted.verdict).toBe('likely_stops_short');
    expect(drifted.rowsShort).toBe(1);
    expect(drifted.finishingBudgetUsd).toBeCloseTo(2.2, 6);
  });

  it('no drift seen: the rows are reserved as they were', () => {
    expect(reservedUnderDrift(rows, 1)).toEqual(rows);
  });
});
