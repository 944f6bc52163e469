// The cost history in a PostgreSQL journal (the `settled_costs` table, shared by the database's jobs; see
// ../settled-costs.ts).
import type pg from 'pg';
import type { Queryable } from './pool.js';
import {
  SETTLED_COST_COLUMNS,
  settledCostOfRow,
  valuesOfSettledCost,
  type SettledCostRecord,
  type SettledCostRow,
} from '../settled-costs.js';

const CHUNK = 500;

export async function recordSettledCosts(pool: pg.Pool, rows: readonly SettledCostRecord[]): Promise<number> {
  let added = 0;
  const width = SETTLED_COST_COLUMNS.length;
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const tuples = chunk.map((_, r) => `(${SETTLED_COST_COLUMNS.map((__, c) => `$${r * width + c + 1}`).join(', ')})`);
    const result = await pool.query(
      `INSERT INTO settled_costs (${SETTLED_COST_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT (id) DO NOTHING`,
      chunk.flatMap(valuesOfSettledCost),
    );
    added += result.rowCount ?? 0;
  }
  return added;
}

const UNDEFINED_TABLE = '42P01';

/** The history, oldest first; a schema no run has brought to the history's step yet (`plan` first) has none. */
export async function settledCosts(pool: Queryable): Promise<SettledCostRecord[]> {
  try {
    const { rows } = await pool.query<SettledCostRow>(
      `SELECT ${SETTLED_COST_COLUMNS.join(', ')} FROM settled_costs ORDER BY settled_at, id`,
    );
    return rows.map(settledCostOfRow);
  } catch (err) {
    if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return [];
    throw err;
  }
}
