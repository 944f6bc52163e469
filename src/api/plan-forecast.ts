// What `plan` says of money beyond the table: the forecast of the job's total from the cost history,
// and, under a budget, the verdict the run will agree with (src/core/forecast.ts, plan-verdict.ts).
import { CostHistory, drawJob, forecastOf, type Forecast, type ForecastRow } from '../core/forecast.js';
import { planVerdict, type PlanVerdict } from '../core/plan-verdict.js';
import { accountHistory } from '../core/start-forecast.js';
import { reservedUnderDrift } from '../core/plan-drift.js';
import type { SettledCostRecord } from '../journal/index.js';

export interface PlanForecast {
  forecast: Forecast;
  /** Null without a budget. */
  verdict: PlanVerdict | null;
}

/**
 * `rows`: the rows a run would still send, in its order. `committedUsd`: what the journal holds (settled and
 * reserved). The history of `account`, when it has any; else every account's. `driftRatio`: what the gateway was
 * seen charging above the table (core/plan-drift.ts; 1: none).
 */
export function planForecast(
  rows: readonly ForecastRow[],
  settled: readonly SettledCostRecord[],
  options: { committedUsd: number; budgetUsd: number | undefined; account: string | undefined; driftRatio: number },
): PlanForecast {
  const history = new CostHistory(accountHistory(settled, options.account));
  // Under a budget the run scales each reservation by the drift seen; the verdict judges the rows as it reserves them.
  const reserved = options.budgetUsd === undefined ? rows : reservedUnderDrift(rows, options.driftRatio);
  const draws = drawJob(reserved, history, {
    committedUsd: options.committedUsd,
    driftRatio: options.driftRatio,
    ...(options.budgetUsd !== undefined ? { budgetUsd: options.budgetUsd } : {}),
  });
  return {
    forecast: forecastOf(draws),
    verdict:
      options.budgetUsd === undefined ? null : planVerdict(reserved, draws, options.budgetUsd, options.committedUsd),
  };
}
