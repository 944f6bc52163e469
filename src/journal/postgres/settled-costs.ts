// The cost history in a PostgreSQL journal (the `settled_costs` table, shared by the database's jobs; see
// ../settled-costs.ts).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyLine } from './copy-text.js';
import { checkout, type Queryable } from './pool.js';
import {
  insertSettledCostsSql,
  SETTLED_COST_COLUMNS,
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
    // A settlement's id is new but when the same rows come again (an import, a flush retried). A COPY logs the
    // rows of a page in one WAL record where ON CONFLICT's speculative insert logs two per row; on a clash,
    // the chunk again with the rows the history already holds left out.
    added += await copySettledCosts(pool, chunk).catch(async (err: unknown) => {
      if ((err as { code?: unknown }).code !== UNIQUE_VIOLATION) throw err;
      const result = await pool.query(
        insertSettledCostsSql(chunk.length, (i) => `$${i + 1}`),
        chunk.flatMap(valuesOfSettledCost),
      );
      return result.rowCount ?? 0;
    });
  }
  return added;
}

async function copySettledCosts(pool: pg.Pool, rows: readonly SettledCostRecord[]): Promise<number> {
  const client = await checkout(pool);
  let broken: unknown;
  try {
    const stream = client.query(copyFrom(`COPY settled_costs (${SETTLED_COST_COLUMNS.join(', ')}) FROM STDIN`));
    await pipeline(Readable.from(rows.map((r) => copyLine(valuesOfSettledCost(r)))), stream);
    return stream.rowCount;
  } catch (err) {
    broken = err;
    throw err;
  } finally {
    // A COPY the server refused ends cleanly on its side; a broken stream leaves the session unusable.
    client.release(broken !== undefined && (broken as { code?: unknown }).code === undefined);
  }
}

const UNIQUE_VIOLATION = '23505';
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
