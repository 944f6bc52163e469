// The journal's one `job` row: the job's name, manifests, options, budget and cancellation.
import type Database from 'better-sqlite3';
import { fileBudgetOf, fileBudgetText } from '../../core/job-budget.js';
import {
  keepingStartForecast,
  START_FORECAST_KEY,
  startForecastOf,
  type StartForecast,
} from '../../core/start-forecast.js';
import type { JobRecord } from '../change.js';
import type { JobCancel, JobInput, KeptStartForecast } from '../store.js';

export class JobRow {
  private cancelStmt: Database.Statement | undefined;
  private budgetStmt: Database.Statement | undefined;
  private cancelColumns: boolean | undefined;

  constructor(private readonly db: Database.Database) {}

  read(): JobRecord | undefined {
    const row = this.db.prepare('SELECT * FROM job WHERE id = 1').get() as
      | {
          name: string;
          manifest: string;
          options: string;
          created_at: number;
          updated_at: number;
          budget_usd?: number | null;
          job_file_budget?: string | null;
        }
      | undefined;
    if (!row) return undefined;
    const options = JSON.parse(row.options) as Record<string, unknown>;
    // A journal not yet migrated (opened read-only) has no budget column: its last run's options say it.
    const budget = 'budget_usd' in row ? row.budget_usd : options.budget;
    return {
      name: row.name,
      manifest: row.manifest,
      options,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(typeof budget === 'number' ? { budgetUsd: budget } : {}),
      ...(fileBudgetOf(row.job_file_budget) !== undefined ? { jobFileBudget: fileBudgetOf(row.job_file_budget)! } : {}),
    };
  }

  /**
   * `budgetUsd` is the job's budget in force from now on (undefined: none). The forecast the record keeps stays when
   * `job.options` carry none: read and written in one transaction, so no other writer comes between.
   */
  write(job: JobInput, now: number): void {
    const fileBudget = job.jobFileBudget === undefined ? null : fileBudgetText(job.jobFileBudget);
    this.db
      .transaction(() => {
        const options = keepingStartForecast(job.options, this.storedOptions());
        this.db
          .prepare(
            `INSERT INTO job (id, name, manifest, options, budget_usd, job_file_budget, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET name = excluded.name, manifest = excluded.manifest, options = excluded.options,
            budget_usd = excluded.budget_usd, job_file_budget = COALESCE(excluded.job_file_budget, job.job_file_budget), updated_at = excluded.updated_at`,
          )
          .run(job.name, job.manifest, JSON.stringify(options), job.budgetUsd ?? null, fileBudget, now, now);
      })
      .immediate();
  }

  /** `forecast` kept unless the record keeps one already; the one it keeps then. Undefined before the job is saved. */
  keepStartForecast(forecast: StartForecast): KeptStartForecast | undefined {
    return this.db
      .transaction((): KeptStartForecast | undefined => {
        const options = this.storedOptions();
        if (!options) return undefined;
        const kept = startForecastOf(options);
        if (kept) return { forecast: kept, made: false };
        this.db
          .prepare('UPDATE job SET options = ? WHERE id = 1')
          .run(JSON.stringify({ ...options, [START_FORECAST_KEY]: forecast }));
        return { forecast, made: true };
      })
      .immediate();
  }

  private storedOptions(): Record<string, unknown> | undefined {
    const row = this.db.prepare('SELECT options FROM job WHERE id = 1').get() as { options: string } | undefined;
    return row && (JSON.parse(row.options) as Record<string, unknown>);
  }

  /** The job's budget in force (undefined: none, or no job yet). */
  budget(): number | undefined {
    this.budgetStmt ??= this.db.prepare('SELECT budget_usd FROM job WHERE id = 1');
    const row = this.budgetStmt.get() as { budget_usd: number | null } | undefined;
    return row?.budget_usd ?? undefined;
  }

  /** The job's cancellation (`gbatch cancel`); undefined on a journal older than it (read-only, not migrated). */
  cancel(): JobCancel | undefined {
    if (!this.hasCancelColumns()) return undefined;
    this.cancelStmt ??= this.db.prepare('SELECT cancelled_at, cancel_reason FROM job WHERE id = 1');
    const row = this.cancelStmt.get() as { cancelled_at: number | null; cancel_reason: string | null } | undefined;
    return row?.cancelled_at == null ? undefined : { at: row.cancelled_at, reason: row.cancel_reason ?? '' };
  }

  /**
   * Cancels the job (the first cancellation's time stays) or, with undefined, lifts it. A journal without a job yet:
   * nothing (undefined).
   */
  setCancel(reason: string | undefined, now: number): JobCancel | undefined {
    if (reason === undefined)
      this.db.prepare('UPDATE job SET cancelled_at = NULL, cancel_reason = NULL WHERE id = 1').run();
    else
      this.db
        .prepare('UPDATE job SET cancelled_at = COALESCE(cancelled_at, ?), cancel_reason = ? WHERE id = 1')
        .run(now, reason);
    return this.cancel();
  }

  private hasCancelColumns(): boolean {
    return (this.cancelColumns ??=
      this.db.prepare(`SELECT 1 FROM pragma_table_info('job') WHERE name = 'cancelled_at'`).get() !== undefined);
  }
}
