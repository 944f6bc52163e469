// The group ratios the job's runners saw (the `drifts` table): one row per job, account and model, the largest kept.
import type pg from 'pg';
import type { SeenDrift } from '../../core/seen-drift.js';
import { DRIFT_COLUMNS, driftOfRow, rowOfDrift, type DriftRow } from '../drift-rows.js';

const UPDATES = DRIFT_COLUMNS.filter((c) => c !== 'account' && c !== 'model')
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

/** One statement: two runners seeing ratios at once each keep theirs only when it is the larger. */
export async function recordDrift(pool: pg.Pool, jobId: number, seen: SeenDrift, at: number): Promise<void> {
  const values = rowOfDrift(seen);
  const placeholders = values.map((_, i) => `$${i + 2}`).join(', ');
  await pool.query(
    `INSERT INTO drifts (job_id, ${DRIFT_COLUMNS.join(', ')}, seen_at) VALUES ($1, ${placeholders}, $${values.length + 2})
    ON CONFLICT (job_id, account, model) DO UPDATE SET ${UPDATES}, seen_at = excluded.seen_at
    WHERE excluded.ratio > drifts.ratio`,
    [jobId, ...values.map((v, i) => (DRIFT_COLUMNS[i] === 'has_reference_video' ? v === 1 : v)), at],
  );
}

export async function jobDrifts(pool: pg.Pool, jobId: number | undefined): Promise<SeenDrift[]> {
  if (jobId === undefined) return [];
  const { rows } = await pool.query<DriftRow>(
    `SELECT ${DRIFT_COLUMNS.join(', ')} FROM drifts WHERE job_id = $1 ORDER BY account, model`,
    [jobId],
  );
  return rows.map(driftOfRow);
}
