// The PostgreSQL journal's migrator: applies the steps of migrations/ (schema-steps.ts) the schema has
// not applied yet, then the stored functions' definitions (functions/), in the same transaction; its
// version is gbatch_schema_version's. One database holds many jobs: every table is keyed by the job.
// A changed function file comes with a new step (test/journal/postgres/schema-functions.test.ts pins
// them), so that every schema already current applies it.
import type pg from 'pg';
import { MIGRATION_LOCK_SQL } from './advisory-locks.js';
import { FUNCTIONS, MIGRATIONS } from './schema-steps.js';

export { MIGRATIONS };
import { NewerSchemaError } from '../errors.js';

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The schema's version, 0 when gbatch has never written here (the version table does not exist). */
export async function schemaVersion(db: Pick<pg.ClientBase, 'query'>): Promise<number> {
  const table = await db.query<{ t: string | null }>(`SELECT to_regclass('gbatch_schema_version')::text AS t`);
  if (table.rows[0]?.t == null) return 0;
  const row = await db.query<{ version: number }>('SELECT version FROM gbatch_schema_version WHERE id = 1');
  return row.rows[0]?.version ?? 0;
}

/**
 * Brings the schema (the first of the connection's search_path) to SCHEMA_VERSION; refuses one written
 * by a newer gbatch. The version is read again under a transaction-scoped advisory lock: N runners
 * connecting at once would otherwise each see version 0 and each create the tables. Returns how many
 * steps this call applied (0: already current, or another process did them).
 */
export async function migrate(pool: Pick<pg.Pool, 'connect'>, location: string): Promise<number> {
  const client = await pool.connect();
  try {
    const seen = await schemaVersion(client);
    if (seen > SCHEMA_VERSION) throw new NewerSchemaError(location, seen, SCHEMA_VERSION);
    if (seen === SCHEMA_VERSION) return 0;
    await client.query('BEGIN');
    try {
      await client.query(MIGRATION_LOCK_SQL);
      await client.query(
        'CREATE TABLE IF NOT EXISTS gbatch_schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)',
      );
      const current = await schemaVersion(client);
      if (current > SCHEMA_VERSION) throw new NewerSchemaError(location, current, SCHEMA_VERSION);
      for (let version = current; version < SCHEMA_VERSION; version++) await client.query(MIGRATIONS[version]!);
      for (const definition of FUNCTIONS) await client.query(definition);
      await client.query(
        `INSERT INTO gbatch_schema_version (id, version) VALUES (1, $1)
        ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
        [SCHEMA_VERSION],
      );
      await client.query('COMMIT');
      return SCHEMA_VERSION - current;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}
