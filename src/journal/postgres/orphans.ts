// The PostgreSQL adapter's orphaned rows (src/core/orphans.ts), answering as SQLite's does: the summary
// `status` and `run` show, the operator's adoption and removal. The ingest's statement is in ingest-writer.ts.
import type pg from 'pg';
import { forgetRefusal, LISTING_CODE, listingOf, ORPHAN_WAITING_STATES } from '../../core/orphans.js';
import type { ItemState } from '../../core/states.js';
import type { ForgetOutcome, ListingRow, OrphanSummary } from '../orphans.js';
import { writeLockSql } from './advisory-locks.js';
import { inTransaction, type Queryable } from './pool.js';

export async function orphanSummary(db: Queryable, jobId: number | undefined, limit: number): Promise<OrphanSummary> {
  if (jobId === undefined) return { total: 0, counts: {}, rows: [] };
  const where = `job_id = $1 AND orphan = ${LISTING_CODE.orphaned} AND state = ANY($2)`;
  const counts: Partial<Record<ItemState, number>> = {};
  let total = 0;
  const grouped = await db.query<{ state: ItemState; n: number }>(
    `SELECT state, COUNT(*)::int AS n FROM items WHERE ${where} GROUP BY state`,
    [jobId, ORPHAN_WAITING_STATES],
  );
  for (const row of grouped.rows) {
    counts[row.state] = row.n;
    total += row.n;
  }
  const rows =
    total === 0 || limit === 0
      ? []
      : (
          await db.query<Omit<ListingRow, 'listing'>>(
            `SELECT id, state, attempts FROM items WHERE ${where} ORDER BY seq LIMIT $3`,
            [jobId, ORPHAN_WAITING_STATES, limit],
          )
        ).rows;
  return { total, counts, rows: rows.map((row) => ({ ...row, listing: 'orphaned' })) };
}

export async function listings(
  db: Queryable,
  jobId: number | undefined,
  ids: readonly string[],
): Promise<Map<string, ListingRow>> {
  const found = new Map<string, ListingRow>();
  if (jobId === undefined || ids.length === 0) return found;
  const { rows } = await db.query<{ id: string; orphan: number; state: ItemState; attempts: number }>(
    'SELECT id, orphan, state, attempts FROM items WHERE job_id = $1 AND id = ANY($2)',
    [jobId, [...new Set(ids)]],
  );
  for (const row of rows)
    found.set(row.id, { id: row.id, listing: listingOf(row.orphan), state: row.state, attempts: row.attempts });
  return found;
}

export async function adopt(pool: pg.Pool, jobId: number, ids: readonly string[]): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `UPDATE items SET orphan = ${LISTING_CODE.adopted}
    WHERE job_id = $1 AND id = ANY($2) AND orphan = ${LISTING_CODE.orphaned} RETURNING id`,
    [jobId, [...new Set(ids)]],
  );
  const changed = new Set(rows.map((r) => r.id));
  return ids.filter((id) => changed.has(id));
}

/** Under the job's write lock alone: no runner moves a row between the check and the removal. */
export async function forget(pool: pg.Pool, jobId: number, ids: readonly string[]): Promise<ForgetOutcome> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT ${writeLockSql('$1', 'exclusive')}`, [jobId]);
    const rows = await listings(client, jobId, ids);
    for (const id of ids) {
      const refusal = forgetRefusal(rows.get(id), id);
      if (refusal) return { ok: false, refusal };
    }
    const unique = [...new Set(ids)];
    await client.query('DELETE FROM items WHERE job_id = $1 AND id = ANY($2)', [jobId, unique]);
    await client.query('DELETE FROM events WHERE job_id = $1 AND item_id = ANY($2)', [jobId, unique]);
    // A manifest read whole before may hold a removed id: it is read again, to add the row back.
    await client.query('DELETE FROM manifests WHERE job_id = $1', [jobId]);
    return { ok: true, forgotten: unique };
  });
}
