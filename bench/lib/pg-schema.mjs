// A PostgreSQL schema of its own for each benchmark run (created, then dropped with all it holds), so
// runs never see one another's jobs. The server is the tests' one (trust auth) unless GBATCH_BENCH_PG_URL.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';

export const PG_BENCH_URL = process.env.GBATCH_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** `url` with its connections' search_path set to `schema` (as test/helpers/postgres.ts). */
export function withSearchPath(url, schema) {
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/**
 * A fresh schema on the server `base` names (default: the tests' one): `url` for gbatch's --journal, `query` for the
 * benchmark's own look, `drop()` at the end.
 */
export async function createPgSchema(prefix, base = PG_BENCH_URL) {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`SET search_path = ${schema}`);
  return {
    schema,
    url: withSearchPath(base, schema),
    query: (sql, values) => admin.query(sql, values),
    async drop() {
      try {
        // A runner killed mid-transaction leaves its backend holding locks until the server sees the socket close:
        // the drop, locking table after table, may deadlock with it and be the one PostgreSQL cancels. Again then.
        for (let attempt = 1; ; attempt++) {
          try {
            await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
            return;
          } catch (err) {
            if (err.code !== '40P01' || attempt === 5) throw err;
            await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
          }
        }
      } finally {
        await admin.end();
      }
    },
  };
}

/** The server's postmaster pid (from its data directory's postmaster.pid), or null when not readable here. */
export async function postmasterPid() {
  const client = new pg.Client({ connectionString: PG_BENCH_URL });
  await client.connect();
  try {
    const {
      rows: [row],
    } = await client.query('SHOW data_directory');
    return Number(readFileSync(`${row.data_directory}/postmaster.pid`, 'utf8').split('\n')[0]);
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/**
 * Diagnostic (--analyze-after-ingest): watches the schema until the job's `rows` rows are in `items`
 * (the ingest commits them at once), then runs ANALYZE on it, as gbatch would if its ingest did. Without
 * it the table has no statistics for the whole run. `done` resolves with the ms from the call to the
 * ANALYZE's end (null when stopped first).
 */
export function analyzeOnceIngested(db, rows) {
  return onceIngested(db, rows, 'ANALYZE items');
}

/** Runs `statement` as soon as the job's `rows` rows are in `items` (see analyzeOnceIngested). */
export function onceIngested(db, rows, statement) {
  let stopped = false;
  const started = performance.now();
  const done = (async () => {
    while (!stopped) {
      // Before gbatch's migration has created it, `items` does not exist: count 0.
      const {
        rows: [row],
      } = await db.query('SELECT count(*)::int AS n FROM items').catch(() => ({ rows: [{ n: 0 }] }));
      if (row.n >= rows) {
        await db.query(statement);
        return performance.now() - started;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return null;
  })();
  return {
    done,
    stop: () => {
      stopped = true;
    },
  };
}

/**
 * Holds the server's WAL from now until `release()`, so that a checkpoint cannot recycle segments a
 * benchmark reads afterwards (pg_waldump): a temporary replication slot on a session of its own (a
 * temporary slot is dropped by any error in its session, and the benchmark's own session sees some).
 * Null when the server refuses one (no superuser or replication role, max_replication_slots = 0).
 */
export async function holdWal(name) {
  const client = new pg.Client({ connectionString: PG_BENCH_URL });
  await client.connect();
  try {
    await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [name]);
  } catch (err) {
    await client.end();
    process.stderr.write(
      `no replication slot (${err.message}): a checkpoint may recycle the WAL before pg_waldump reads it\n`,
    );
    return null;
  }
  return { release: () => client.end() };
}
