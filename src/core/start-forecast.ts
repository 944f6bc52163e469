// The forecast a job started with: at the start of its first sending run, the P50/P90 of each model's rows
// still to send, by the same Monte Carlo as `plan` (forecast.ts), kept in the job's record so the report
// can set it against what was billed and `status` can show it while rows remain. It is never read by the
// budget: the run reserves each row's bound whatever the forecast says. Pure.
import {
  CostHistory,
  drawJob,
  forecastOf,
  percentile,
  trialsFor,
  type Forecast,
  type ForecastRow,
  type SettledCost,
} from './forecast.js';
import { roundUsd } from './money.js';

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
  // One draw per row and trial in all: every model is drawn with the job's trials, and a trial's total is the sum of
  // its models' (a model's rows are drawn apart from another's, as in one draw of the whole job).
  const trials = trialsFor(rows.length);
  const totals = new Float64Array(trials);
  const models: Record<string, Forecast> = {};
  let basisRows = 0;
  let rowsWithoutHistory = 0;
  for (const model of [...byModel.keys()].sort()) {
    const draws = drawJob(byModel.get(model)!, history, { committedUsd: 0, trials });
    for (let t = 0; t < trials; t++) totals[t] = totals[t]! + draws.totals[t]!;
    models[model] = forecastOf(draws);
    // Likeness keys name the model: no settled row is drawn on by two models.
    basisRows += draws.basisRows;
    rowsWithoutHistory += draws.rowsWithoutHistory;
  }
  for (let t = 0; t < trials; t++) totals[t] = roundUsd(totals[t]!);
  const total = { p50Usd: percentile(totals, 0.5), p90Usd: percentile(totals, 0.9), basisRows, rowsWithoutHistory };
  return { at, total, models };
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

/**
 * The options a save of the job's record writes: `options`, with the forecast the record keeps (`stored`) when they
 * carry none. A run's save of the job never drops the forecast another runner kept after this run read the record.
 */
export function keepingStartForecast(
  options: Record<string, unknown>,
  stored: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const kept = stored?.[START_FORECAST_KEY];
  return kept === undefined || START_FORECAST_KEY in options ? options : { ...options, [START_FORECAST_KEY]: kept };
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
