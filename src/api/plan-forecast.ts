// What `plan` says of money beyond the table: the forecast of the job's total from the cost history,
// and, under a budget, the verdict the run will agree with (src/core/forecast.ts, plan-verdict.ts).
import { CostHistory, drawJob, forecastOf, type Forecast, type ForecastRow } from '../core/forecast.js';
import { planVerdict, type PlanVerdict } from '../core/plan-verdict.js';
import { accountHistory } from '../core/start-forecast.js';
import type { SettledCostRecord } from '../journal/index.js';

export interface PlanForecast {
  forecast: Forecast;
  /** Null without a budget. */
  verdict: PlanVerdict | null;
}

/**
 * `rows`: the rows a run would still send, in its order. `committedUsd`: what the journal holds (settled and
 * reserved). The history of `account`, when it has any; else every account's.
 */
export function planForecast(
  rows: readonly ForecastRow[],
  settled: readonly SettledCostRecord[],
  options: { committedUsd: number; budgetUsd: number | undefined; account: string | undefined },
): PlanForecast {
  const history = new CostHistory(accountHistory(settled, options.account));
  const draws = drawJob(rows, history, {
    committedUsd: options.committedUsd,
    ...(options.budgetUsd !== undefined ? { budgetUsd: options.budgetUsd } : {}),
  });
  return {
    forecast: forecastOf(draws),
    verdict: options.budgetUsd === undefined ? null : planVerdict(rows, draws, options.budgetUsd, options.committedUsd),
  };
}
