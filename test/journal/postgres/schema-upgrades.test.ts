// The PostgreSQL steps thinned of the function bodies they held (005, 012, 015, 019, 020: the one definition is
// src/journal/postgres/functions/) leave every upgrade where it ended before: for each version a gbatch ever
// shipped, a schema built by the steps as shipped (test/fixtures/pg-steps-before/, frozen) and then upgraded
// by this migrator has the catalog of a fresh install by this migrator, and of a fresh install by the steps
// as shipped.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres as migrate, POSTGRES_SCHEMA_VERSION as SCHEMA_VERSION } from '../../helpers/journal-raw.js';
import { pgAvailable, PG_TEST_URL, usePgSchema, withSearchPath } from '../../helpers/postgres.js';

const SHIPPED = new URL('../../fixtures/pg-steps-before/', import.meta.url);
const SHIPPED_STEPS = readdirSync(SHIPPED)
  .filter((name) => name.endsWith('.sql'))
  .sort()
  .map((name) => readFileSync(new URL(name, SHIPPED), 'utf8'));

/** What the catalog holds of `schema`, its name replaced so that two schemas compare. */
async function catalog(db: { query: (sql: string, values?: unknown[]) => Promise<pg.QueryResult> }, schema: string) {
  const read = async (sql: string) => (await db.query(sql, [schema])).rows;
  const parts = {
    relations: await read(`SELECT c.relname, c.relkind, c.reloptions FROM pg_class c
      WHERE c.relnamespace = $1::regnamespace ORDER BY c.relname`),
    columns: await read(`SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default,
      is_identity FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`),
    indexes: await read(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`),
    constraints: await read(`SELECT conrelid::regclass::text AS on_table, conname, pg_get_constraintdef(oid) AS def
      FROM pg_constraint WHERE connamespace = $1::regnamespace ORDER BY on_table, conname`),
    triggers: await read(`SELECT t.tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = $1::regnamespace AND NOT t.tgisinternal
      ORDER BY t.tgname`),
    functions: await read(`SELECT p.proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p
      WHERE p.pronamespace = $1::regnamespace ORDER BY p.proname, def`),
    version: (await db.query(`SELECT version FROM ${schema}.gbatch_schema_version`)).rows,
  };
  return JSON.parse(JSON.stringify(parts).replaceAll(schema, '<schema>')) as typeof parts;
}

/** Builds `schema` at `version` with the steps as shipped, as the migrator of that time left it. */
async function buildShipped(pool: pg.Pool, version: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      'CREATE TABLE gbatch_schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)',
    );
    for (const step of SHIPPED_STEPS.slice(0, version)) await client.query(step);
    await client.query('INSERT INTO gbatch_schema_version (id, version) VALUES (1, $1)', [version]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

describe.skipIf(!pgAvailable())('PostgreSQL schema upgrades from every shipped version', () => {
  const db = usePgSchema('gbatch_upgrades');
  const fresh = { thisMigrator: undefined as unknown, shipped: undefined as unknown };
  const schemas: string[] = [];

  async function inSchema<T>(name: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const schema = `${db.schema}_${name}`;
    schemas.push(schema);
    await db.query(`CREATE SCHEMA ${schema}`);
    const pool = new pg.Pool({ connectionString: withSearchPath(PG_TEST_URL, schema), max: 1 });
    try {
      await work(pool);
    } finally {
      await pool.end();
    }
    return (await catalog(db, schema)) as T;
  }

  beforeAll(async () => {
    if (!pgAvailable()) return;
    fresh.thisMigrator = await inSchema('fresh', async (pool) => {
      expect(await migrate(pool, 'test')).toBe(SCHEMA_VERSION);
    });
    fresh.shipped = await inSchema('shipped', (pool) => buildShipped(pool, SHIPPED_STEPS.length));
  });

  afterAll(async () => {
    if (!pgAvailable()) return;
    for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it('the frozen steps are the versions shipped before the steps were thinned', () => {
    expect(SHIPPED_STEPS).toHaveLength(20);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(SHIPPED_STEPS.length);
  });

  it('a fresh install ends as a fresh install by the steps as shipped did', () => {
    // Holds while no step follows the frozen ones; a later step compares its upgrades with the fresh install.
    if (SCHEMA_VERSION === SHIPPED_STEPS.length) expect(fresh.thisMigrator).toEqual(fresh.shipped);
    expect(JSON.stringify(fresh.thisMigrator)).toContain('gbatch_apply_plan');
  });

  it.each(Array.from({ length: SHIPPED_STEPS.length + 1 }, (_, version) => version))(
    'a schema at shipped version %i upgrades to a fresh install',
    async (version) => {
      const upgraded = await inSchema(`v${version}`, async (pool) => {
        await buildShipped(pool, version);
        expect(await migrate(pool, 'test')).toBe(SCHEMA_VERSION - version);
      });
      expect(upgraded).toEqual(fresh.thisMigrator);
    },
  );
});
