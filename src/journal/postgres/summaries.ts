// The PostgreSQL adapter's summaries (migrations/014-item-sums.sql): each statement that changes a job's rows appends
// its parts; a read adds a job's parts up, and gbatch_compact_summaries folds them now and then.
import type { Item } from '../item.js';
import type { JobActivity, RowQuery, VideoTaskTimes } from '../store.js';
import type { SummaryRow } from '../summary-rows.js';
import type { Queryable } from './pool.js';
import type { ItemRow } from '../item.js';
import { ITEM_COLUMNS, toItem } from './item-row.js';

/** Statements of a runner between two folds of the job's parts. */
export const COMPACT_EVERY = 256;

export async function summaryRows(db: Queryable, jobId: number | undefined): Promise<SummaryRow[]> {
  if (jobId === undefined) return [];
  const result = await db.query<SummaryRow>(
    `SELECT state, kind, model, resolution, error_code, sum(items) AS items, sum(settled) AS settled,
      sum(estimated::numeric) AS estimated, sum(actual::numeric) AS actual,
      sum(settled_estimated::numeric) AS settled_estimated, sum(reserved::numeric) AS reserved,
      sum(over::numeric) AS over, sum(over_n) AS over_n, sum(gateway::numeric) AS gateway, sum(gateway_n) AS gateway_n,
      sum(tokens) AS tokens, sum(tokens_n) AS tokens_n, sum(unmetered) AS unmetered
    FROM item_sums WHERE job_id = $1 GROUP BY state, kind, model, resolution, error_code HAVING sum(items) <> 0`,
    [jobId],
  );
  return result.rows;
}

export async function compactSummaries(db: Queryable, jobId: number): Promise<void> {
  await db.query('SELECT gbatch_compact_summaries($1)', [jobId]);
}

export async function activity(db: Queryable, jobId: number | undefined): Promise<JobActivity> {
  if (jobId === undefined) return { firstAt: null, lastAt: null };
  const { rows } = await db.query<{ first: number | null; last: number | null }>(
    'SELECT min(first_submit_at) AS first, max(last_at) AS last FROM job_activity WHERE job_id = $1',
    [jobId],
  );
  const first = rows[0]?.first ?? null;
  if (first === null) return { firstAt: null, lastAt: null };
  return { firstAt: first, lastAt: Math.max(rows[0]?.last ?? first, first) };
}

export async function videoTaskTimes(db: Queryable, jobId: number | undefined): Promise<VideoTaskTimes> {
  if (jobId === undefined) return { count: 0, medianMs: null };
  const { rows } = await db.query<{ n: number }>('SELECT count(*) AS n FROM video_durations WHERE job_id = $1', [
    jobId,
  ]);
  const count = rows[0]?.n ?? 0;
  if (count === 0) return { count, medianMs: null };
  const median = await db.query<{ ms: number }>(
    'SELECT ms FROM video_durations WHERE job_id = $1 ORDER BY ms OFFSET $2 LIMIT 1',
    [jobId, Math.ceil(count / 2) - 1],
  );
  return { count, medianMs: median.rows[0]!.ms };
}

export async function rowPage(db: Queryable, jobId: number | undefined, query: RowQuery): Promise<Item[]> {
  if (jobId === undefined) return [];
  const limit = Math.max(1, Math.min(500, Math.floor(query.limit)));
  const values: unknown[] = [jobId, query.afterSeq ?? 0];
  const where = ['job_id = $1', 'seq > $2'];
  const add = (sql: (param: string) => string, value: unknown): void => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  if (query.states) add((p) => `state = ANY(${p})`, query.states);
  if (query.kinds) add((p) => `kind = ANY(${p})`, query.kinds);
  if (query.model !== undefined) add((p) => `model = ${p}`, query.model);
  if (query.errorCode !== undefined)
    add((p) => `last_error IS NOT NULL AND gbatch_error_code(last_error) = ${p}`, query.errorCode);
  if (query.idPrefix !== undefined) add((p) => `starts_with(id, ${p})`, query.idPrefix);
  values.push(limit);
  const select = (extra: string[]): string =>
    `SELECT ${ITEM_COLUMNS} FROM items WHERE ${[...where, ...extra].join(' AND ')} ORDER BY seq LIMIT $${values.length}`;
  // The model index leaves out the rows in flight (migrations/020): those come from the state index.
  const sql =
    query.model === undefined
      ? select([])
      : `(${select([`state NOT IN (${IN_FLIGHT_SQL})`])}) UNION ALL (${select([`state IN (${IN_FLIGHT_SQL})`])})
        ORDER BY seq LIMIT $${values.length}`;
  const result = await db.query<ItemRow>(sql, values);
  return result.rows.map(toItem);
}

/** The states the model index leaves out (migrations/020-fewer-row-writes.sql), as that index names them. */
const IN_FLIGHT_SQL = "'submitting', 'submitted', 'running', 'succeeded'";
