// The start forecast in a job's record (core/start-forecast.ts): kept once, and never dropped by a later save of
// the record, however the job's runners race. Each write reads the record under its row lock and writes it in the
// same transaction, so no other writer comes between the read and the write. The options are merged here rather
// than as jsonb: jsonb refuses a \u0000 in a string the options (a client's metadata) may carry.
import type pg from 'pg';
import {
  keepingStartForecast,
  START_FORECAST_KEY,
  startForecastOf,
  type StartForecast,
} from '../../core/start-forecast.js';
import { fileBudgetText } from '../../core/job-budget.js';
import type { JobInput, KeptStartForecast } from '../store.js';
import { inTransaction } from './pool.js';

async function lockedOptions(client: pg.PoolClient, jobId: number): Promise<Record<string, unknown> | undefined> {
  const { rows } = await client.query<{ options: string | null }>('SELECT options FROM jobs WHERE id = $1 FOR UPDATE', [
    jobId,
  ]);
  const options = rows[0]?.options;
  return options ? (JSON.parse(options) as Record<string, unknown>) : undefined;
}

/** Saves the job's record; a forecast the record keeps stays unless `job.options` carry one. */
export async function saveJobRecord(pool: pg.Pool, jobId: number, job: JobInput, now: number): Promise<void> {
  await inTransaction(pool, async (client) => {
    const options = keepingStartForecast(job.options, await lockedOptions(client, jobId));
    // created_at is the first save's time, as SQLite's.
    await client.query(
      `UPDATE jobs SET manifest = $1, options = $2, budget_usd = $3, updated_at = $4,
        created_at = CASE WHEN manifest IS NULL THEN $4 ELSE created_at END, job_file_budget = COALESCE($6, job_file_budget)
      WHERE id = $5`,
      [
        job.manifest,
        JSON.stringify(options),
        job.budgetUsd ?? null,
        now,
        jobId,
        job.jobFileBudget === undefined ? null : fileBudgetText(job.jobFileBudget),
      ],
    );
  });
}

/** `forecast` kept unless the record keeps one; the one it keeps then. Undefined before the job is saved. */
export async function keepStartForecast(
  pool: pg.Pool,
  jobId: number,
  forecast: StartForecast,
): Promise<KeptStartForecast | undefined> {
  return inTransaction(pool, async (client) => {
    const options = await lockedOptions(client, jobId);
    if (!options) return undefined;
    const kept = startForecastOf(options);
    if (kept) return { forecast: kept, made: false };
    await client.query('UPDATE jobs SET options = $1 WHERE id = $2', [
      JSON.stringify({ ...options, [START_FORECAST_KEY]: forecast }),
      jobId,
    ]);
    return { forecast, made: true };
  });
}
