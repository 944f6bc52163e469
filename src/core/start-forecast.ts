// The forecast a job started with: at the start of its first sending run, the P50/P90 of each model's rows
// still to send, by the same Monte Carlo as `plan` (forecast.ts), kept in the job's record so the report
// can set it against what was billed and `status` can show it while rows remain. It is never read by the
// budget: the run reserves each row's bound whatever the forecast says. Pure.
import { CostHistory, drawJob, forecastOf, type Forecast, type ForecastRow, type SettledCost } from './forecast.js';

/** The key of the job record's options under which the forecast is kept. */
export const START_FORECAST_KEY = 'startForecast';

export interface StartForecast {
  /** When it was made (ms since the epoch). */
  at: number;
  /** Every row to send at the start. */
  total: Forecast;
  /** Per model, by model name. */
  models: Record<string, Forecast>;
}

/** The history a forecast draws on: the account's own rows when it has any, else every account's. */
export function accountHistory<T extends SettledCost & { account: string }>(
  settled: readonly T[],
  account: string | undefined,
): readonly T[] {
  const own = account === undefined ? [] : settled.filter((r) => r.account === account);
  return own.length > 0 ? own : settled;
}

/** The forecast of `rows` (the job's rows still to send, in order): in total and per model. */
export function startForecast(rows: readonly ForecastRow[], settled: Iterable<SettledCost>, at: number): StartForecast {
  const history = new CostHistory(settled);
  const byModel = new Map<string, ForecastRow[]>();
  for (const row of rows) {
    const list = byModel.get(row.model);
    if (list) list.push(row);
    else byModel.set(row.model, [row]);
  }
  const models: Record<string, Forecast> = {};
  for (const model of [...byModel.keys()].sort())
    models[model] = forecastOf(drawJob(byModel.get(model)!, history, { committedUsd: 0 }));
  return { at, total: forecastOf(drawJob(rows, history, { committedUsd: 0 })), models };
}

/** The forecast kept in a job record's options; undefined when there is none (or it is not one). */
export function startForecastOf(options: Record<string, unknown> | undefined): StartForecast | undefined {
  const kept = options?.[START_FORECAST_KEY] as Partial<StartForecast> | undefined;
  if (!kept || typeof kept.at !== 'number' || !isForecast(kept.total) || typeof kept.models !== 'object')
    return undefined;
  const models: Record<string, Forecast> = {};
  for (const [model, forecast] of Object.entries(kept.models ?? {})) if (isForecast(forecast)) models[model] = forecast;
  return { at: kept.at, total: kept.total, models };
}

/** Whether no row of the forecast had history: the table's estimate was used throughout. */
export function withoutHistory(forecast: Forecast): boolean {
  return forecast.basisRows === 0;
}

function isForecast(value: unknown): value is Forecast {
  const f = value as Partial<Forecast> | undefined;
  return (
    typeof f === 'object' &&
    f !== null &&
    typeof f.p50Usd === 'number' &&
    typeof f.p90Usd === 'number' &&
    typeof f.basisRows === 'number' &&
    typeof f.rowsWithoutHistory === 'number'
  );
}
