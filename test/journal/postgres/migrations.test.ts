// The PostgreSQL schema's migrations: run once however many runners connect at once, refused when the
// database was written by a newer gbatch.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate, PostgresJournalStore, SCHEMA_VERSION } from '../../../src/journal/postgres/postgres-store.js';
import { pgAvailable, PG_TEST_URL, usePgSchema, withSearchPath } from '../../helpers/postgres.js';

describe.skipIf(!pgAvailable())('PostgreSQL journal migrations', () => {
  const db = usePgSchema('gbatch_migrate');

  it('three connections migrating a fresh schema at once apply the steps once', async () => {
    const pools = [1, 2, 3].map(() => new pg.Pool({ connectionString: db.url() }));
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool, 'test')));
      expect(applied.sort()).toEqual([0, 0, SCHEMA_VERSION]);
      expect((await db.query('SELECT version FROM gbatch_schema_version')).rows).toEqual([{ version: SCHEMA_VERSION }]);
      expect(await migrate(pools[0]!, 'test')).toBe(0);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('three stores opening one new job at once share one job row and one schema', async () => {
    const stores = await Promise.all([1, 2, 3].map(() => PostgresJournalStore.open(db.url(), { job: 'together' })));
    try {
      expect((await db.query(`SELECT count(*)::int AS n FROM jobs WHERE name = 'together'`)).rows).toEqual([{ n: 1 }]);
      expect(new Set(stores.map((s) => s.location)).size).toBe(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('items carry an owner column (a runner id) for the leases to come', async () => {
    const store = await PostgresJournalStore.open(db.url(), { job: 'owner' });
    await store.close();
    const column = await db.query(`SELECT data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = 'items' AND column_name = 'owner'`, [db.schema]);
    expect(column.rows).toEqual([{ data_type: 'uuid', is_nullable: 'YES' }]);
  });

  it('refuses a schema newer than this gbatch supports, read-only too, naming both versions', async () => {
    const other = `${db.schema}_newer`;
    await db.query(`CREATE SCHEMA ${other}`);
    try {
      const url = withSearchPath(PG_TEST_URL, other);
      const store = await PostgresJournalStore.open(url, { job: 'j' });
      await store.close();
      await db.query(`UPDATE ${other}.gbatch_schema_version SET version = ${SCHEMA_VERSION + 1}`);
      const message = `journal schema version ${SCHEMA_VERSION + 1} is newer than this gbatch supports (${SCHEMA_VERSION}); upgrade gbatch`;
      await expect(PostgresJournalStore.open(url, { job: 'j' })).rejects.toThrow(message);
      await expect(PostgresJournalStore.open(url, { job: 'j', readonly: true })).rejects.toThrow(message);
    } finally {
      await db.query(`DROP SCHEMA ${other} CASCADE`);
    }
  });
});
