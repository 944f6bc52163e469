// The cost history in a PostgreSQL journal (the `settled_costs` table, shared by the database's jobs; see
// ../settled-costs.ts).
import type pg from 'pg';
import type { Queryable } from './pool.js';
import {
  insertSettledCostsSql,
  SELECT_SETTLED_COSTS,
  settledCostOfRow,
  valuesOfSettledCost,
} from '../settled-costs.js';
import type { SettledCostRecord, SettledCostRow } from '../settled-costs.js';

const CHUNK = 500;

export async function recordSettledCosts(pool: pg.Pool, rows: readonly SettledCostRecord[]): Promise<number> {
  let added = 0;
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const result = await pool.query(
      insertSettledCostsSql(chunk.length, (i) => `$${i + 1}`),
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
    const { rows } = await pool.query<SettledCostRow>(SELECT_SETTLED_COSTS);
    return rows.map(settledCostOfRow);
  } catch (err) {
    if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return [];
    throw err;
  }
}
