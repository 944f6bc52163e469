// Keeps the forecast a job starts with (core/start-forecast.ts) in its record, once: at the first run
// that has rows to send, after ingest and before the first send. Later runs carry it over unchanged, so
// the report sets the forecast of the whole job against the whole job's bill.
import { rowLikeness } from '../core/row-likeness.js';
import type { ForecastRow } from '../core/forecast.js';
import {
  accountHistory,
  START_FORECAST_KEY,
  startForecast,
  startForecastOf,
  type StartForecast,
} from '../core/start-forecast.js';
import type { JobInput, JournalHistoryReads, JournalRun } from '../journal/index.js';

/** `options` with the forecast the saved record keeps, if it keeps one. */
export function carryStartForecast(
  options: Record<string, unknown>,
  saved: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const kept = startForecastOf(saved);
  return kept ? { ...options, [START_FORECAST_KEY]: kept } : options;
}

/** The forecast the job's record keeps, and whether this run made it (false: an earlier run did). */
export interface KeptForecast {
  forecast: StartForecast;
  made: boolean;
}

/**
 * Forecasts the rows still to send and saves it in the job's record (`job`: the record as this run saved it),
 * unless the record already keeps one or nothing is left to send. Returns the forecast the record keeps, if any.
 */
export async function recordStartForecast(
  journal: Pick<JournalRun, 'getJob' | 'saveJob' | 'iterate'> & JournalHistoryReads,
  job: JobInput,
  account: string,
  now: number,
): Promise<KeptForecast | undefined> {
  const kept = startForecastOf((await journal.getJob())?.options);
  if (kept) return { forecast: kept, made: false };
  const rows: ForecastRow[] = [];
  for await (const item of journal.iterate({ states: ['pending'], notOrphaned: true }))
    rows.push({
      ...rowLikeness(item.kind, item.request),
      id: item.id,
      estimateUsd: item.estimateUsd,
      reserveUsd: item.estimateUsd,
    });
  if (rows.length === 0) return undefined;
  const forecast = startForecast(rows, accountHistory(await journal.settledCosts(), account), now);
  await journal.saveJob({ ...job, options: { ...job.options, [START_FORECAST_KEY]: forecast } });
  return { forecast, made: true };
}
