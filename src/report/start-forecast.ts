// The report's "forecast at the start against the bill", per model: the forecast the job's record keeps
// (core/start-forecast.ts) beside what the journal says each model's rows were billed. Pure.
import { roundUsd } from '../core/money.js';
import type { StartForecast } from '../core/start-forecast.js';
import { usd } from './table.js';

export interface ReportModelForecast {
  p50_usd: number;
  p90_usd: number;
  /** Settled rows of the history the forecast drew on; 0: no history, the table's estimate was used. */
  basis_rows: number;
  /** Rows of the model with no row like them in the history (each forecast at its table estimate). */
  rows_without_history: number;
  /** What the model's rows were billed so far. */
  actual_usd: number;
  /** Where the bill fell: below P50, between P50 and P90, or above P90. */
  actual_vs_forecast: 'below_p50' | 'p50_to_p90' | 'above_p90';
}

export interface ReportForecast {
  /** When the forecast was made: the start of the job's first sending run (ISO). */
  made_at: string;
  /** By model name. */
  by_model: Record<string, ReportModelForecast>;
}

/** `actualByModel`: the billed sums of the report's groups, by model. */
export function reportForecast(
  forecast: StartForecast | undefined,
  actualByModel: ReadonlyMap<string, number>,
): ReportForecast | null {
  if (!forecast) return null;
  const by_model: Record<string, ReportModelForecast> = {};
  for (const [model, f] of Object.entries(forecast.models)) {
    const actual = roundUsd(actualByModel.get(model) ?? 0);
    by_model[model] = {
      p50_usd: f.p50Usd,
      p90_usd: f.p90Usd,
      basis_rows: f.basisRows,
      rows_without_history: f.rowsWithoutHistory,
      actual_usd: actual,
      actual_vs_forecast: actual < f.p50Usd ? 'below_p50' : actual <= f.p90Usd ? 'p50_to_p90' : 'above_p90',
    };
  }
  return { made_at: new Date(forecast.at).toISOString(), by_model };
}

/** The words for where a bill fell against its forecast. */
export const ACTUAL_VS_FORECAST_WORDS: Record<ReportModelForecast['actual_vs_forecast'], string> = {
  below_p50: 'below P50',
  p50_to_p90: 'within P50-P90',
  above_p90: 'above P90',
};

/** What a model's forecast drew on, in words. */
export function forecastBasisWords(f: Pick<ReportModelForecast, 'basis_rows' | 'rows_without_history'>): string {
  if (f.basis_rows === 0) return 'no history: table estimate';
  return `${f.basis_rows} settled row(s) like these${f.rows_without_history > 0 ? `; ${f.rows_without_history} row(s) without history at the table estimate` : ''}`;
}

/** The forecast of the whole job as `status` shows it while rows remain: one line, and its JSON. */
export function startForecastLine(forecast: StartForecast): string {
  const t = forecast.total;
  return (
    `Forecast at the start (${new Date(forecast.at).toISOString()}): P50 ${usd(t.p50Usd)}, P90 ${usd(t.p90Usd)}; ` +
    `${forecastBasisWords({ basis_rows: t.basisRows, rows_without_history: t.rowsWithoutHistory })}`
  );
}

export function startForecastJson(forecast: StartForecast): Record<string, unknown> {
  const t = forecast.total;
  return {
    made_at: new Date(forecast.at).toISOString(),
    p50_usd: t.p50Usd,
    p90_usd: t.p90Usd,
    basis_rows: t.basisRows,
    rows_without_history: t.rowsWithoutHistory,
  };
}
