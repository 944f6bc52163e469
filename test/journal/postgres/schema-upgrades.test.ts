// The PostgreSQL steps thinned of the function bodies they held (005, 012, 015, 019, 020: the one definition is
// src/journal/postgres/functions/) leave every upgrade where it ended before: for each version a gbatch ever
// shipped, a schema built by the steps as shipped and then upgraded
// by this migrator has the catalog of a fresh install by this migrator, and of a fresh install by the steps
// as shipped. Only the thinned steps are kept as shipped (test/fixtures/pg-steps-before/); the others are read
// from the migrations folder, and every step read must hash as it shipped.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres as migrate, POSTGRES_SCHEMA_VERSION as SCHEMA_VERSION } from '../../helpers/journal-raw.js';
import { pgAvailable, PG_TEST_URL, usePgSchema, withSearchPath } from '../../helpers/postgres.js';

/**
 * Each step's sha256 as gbatch shipped it. The steps it still holds unchanged are read from the migrations folder;
 * the thinned ones as shipped from test/fixtures/pg-steps-before/. Either way the text must hash as it shipped.
 */
const SHIPPED_SHA256: Record<string, string> = {
  '001-initial.sql': '90d615e709323d2a81773299f3aa68216af9932894c6b411b1bb6f1fd15342b5',
  '002-shared-runners.sql': 'd952739357f5b273223bd1f439c8526cff96dbb86396b9d99f7b81fb0ff365fd',
  '003-job-cancel.sql': 'f322ebf0e386ca3bafe7ef8f6eb939e7a9842d322fcf520fbbd54fe240e9d343',
  '004-items-rebuilt.sql': '35389bd3f095a5470c5e4e165d84e5085914d8e0c6ebd84de74db0903b0c2e32',
  '005-apply-changes-function.sql': '29c6402ec70a5f4e2857c3ac856ae90b54d7046816ff25dc23cab9b2aab14901',
  '006-results-files.sql': '93e90b6dd43985b91d7a447a7453120f3c860557d867595f9da9e0accff2cdb3',
  '007-items-fillfactor.sql': 'bfd40ff69e0a5266f25e4ec8ad9d54e89b85a035d42d4af0d91a6717b1329d8a',
  '008-job-notices.sql': 'e533dc38d509dc4b6f2eb12d03438de4afaa98194a13390251d332bd4b375800',
  '009-job-file-budget.sql': '9fee3cc32f366d7f59853661919763f2dd77aae16379a01f8f82e438f686649d',
  '010-orphans.sql': '2d8809e15b940bcb2ea673da4d5edf97b8e64fc6ffd4544b9511753033e0c0ce',
  '011-item-meta.sql': '81728a9311cb7800087e92dfce39db63c1b1cb8d73e1017dc054b2056211a076',
  '012-apply-plan-function.sql': 'f02b9748f9bc5769301ebfece7fb9bb443efb9b672f0ad497e83c185ad7ff859',
  '013-serve-catalog.sql': '5e1fbcbf2427679445c5fc9fabe58fe36d78d897d6106d2338879b71d8debc69',
  '014-item-sums.sql': '6fac090c85306c684f95c991d3f43db202dae18b7a39884dc06dd81f98fa0b43',
  '015-attempt-history.sql': '6218d26ba84a4dda9c282c163cbf1038dd441a68221534f4bb07e2ca522802eb',
  '016-drifts.sql': '31dd376ca94d409ac6041b5c1db1a74836cc9db4455fdf0934f12b9f3c1e9943',
  '017-drop-apply-changes.sql': '6be34681728d0daefc02f64039f8f44ff805ad7d21afafe7257dbf74cb0588ca',
  '018-settled-costs.sql': '2a116e2eedf48da87560cb8bbe4c4f99d9bd820de634f0bbcd2f37cb3c7a12c0',
  '019-one-write-path.sql': '856b9191d3740a025cf59a9792b5b261566e996f3a87bf6eac7f21a63829307b',
  '020-fewer-row-writes.sql': 'e3056a8b4ba103a07d0037601318639f83b4f68871322ab8d4a24800157157a3',
};
const STEPS = new URL('../../../src/journal/postgres/migrations/', import.meta.url);
const THINNED = new URL('../../fixtures/pg-steps-before/', import.meta.url);
const thinned = new Set(readdirSync(THINNED).filter((name) => name.endsWith('.sql')));
const SHIPPED_STEPS = Object.keys(SHIPPED_SHA256)
  .sort()
  .map((name) => ({ name, text: readFileSync(new URL(name, thinned.has(name) ? THINNED : STEPS), 'utf8') }));

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
    for (const step of SHIPPED_STEPS.slice(0, version)) await client.query(step.text);
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

  it('the steps read are byte for byte the 20 gbatch shipped before the steps were thinned', () => {
    expect(SHIPPED_STEPS).toHaveLength(20);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(SHIPPED_STEPS.length);
    expect([...thinned].sort()).toEqual([
      '005-apply-changes-function.sql',
      '012-apply-plan-function.sql',
      '015-attempt-history.sql',
      '019-one-write-path.sql',
      '020-fewer-row-writes.sql',
    ]);
    for (const { name, text } of SHIPPED_STEPS)
      expect(`${name} ${createHash('sha256').update(text).digest('hex')}`).toBe(`${name} ${SHIPPED_SHA256[name]}`);
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
