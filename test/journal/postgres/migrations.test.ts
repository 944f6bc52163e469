// The PostgreSQL schema's migrations: run once however many runners connect at once, refused when the
// database was written by a newer gbatch.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore, openQueries } from '../../../src/journal/index.js';
import {
  migratePostgres as migrate,
  POSTGRES_MIGRATIONS as MIGRATIONS,
  POSTGRES_SCHEMA_VERSION as SCHEMA_VERSION,
} from '../../helpers/journal-raw.js';
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
      // Room on each page for a row's later versions (fewer WAL bytes per change: BENCHMARKS.md).
      expect(
        (await db.query(`SELECT reloptions FROM pg_class WHERE oid = '${db.schema}.items'::regclass`)).rows,
      ).toEqual([{ reloptions: ['fillfactor=10'] }]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('three stores opening one new job at once share one job row and one schema', async () => {
    const stores = await Promise.all([1, 2, 3].map(() => openStore(db.url(), { job: 'together' })));
    try {
      expect((await db.query(`SELECT count(*)::int AS n FROM jobs WHERE name = 'together'`)).rows).toEqual([{ n: 1 }]);
      expect(new Set(stores.map((s) => s.location)).size).toBe(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('items carry an owner column (a runner id) for the leases to come', async () => {
    const store = await openStore(db.url(), { job: 'owner' });
    await store.close();
    const column = await db.query(
      `SELECT data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = 'items' AND column_name = 'owner'`,
      [db.schema],
    );
    expect(column.rows).toEqual([{ data_type: 'uuid', is_nullable: 'YES' }]);
  });

  it('a journal written at the first shipped version upgrades with its rows, events and seqs kept', async () => {
    const old = `${db.schema}_old`;
    await db.query(`CREATE SCHEMA ${old}`);
    const url = withSearchPath(PG_TEST_URL, old);
    const pool = new pg.Pool({ connectionString: url });
    try {
      // The two steps shipped first, as a gbatch of that time left them, with a row in flight.
      await pool.query(`CREATE TABLE gbatch_schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL);
        INSERT INTO gbatch_schema_version VALUES (1, 2); ${MIGRATIONS[0]} ${MIGRATIONS[1]}
        INSERT INTO jobs (name, created_at, updated_at) VALUES ('old', 1, 1);
        INSERT INTO items (job_id, id, kind, model, request, content_hash, source_file, source_line, state, attempts, reserved_usd,
          response, owner, claimed_by, updated_at)
        VALUES (1, 'a', 'chat', 'm', '{"x":1}', 'h', 'f.jsonl', 1, 'submitting', 1, 0.5, NULL, '00000000-0000-4000-8000-000000000001', NULL, 7),
               (1, 'b', 'chat', 'm', '{"x":2}', 'h2', 'f.jsonl', 2, 'downloaded', 1, 0, '{"ok":true}', NULL, NULL, 8);
        INSERT INTO events (job_id, item_id, at, event, from_state, to_state) VALUES (1, 'a', 5, 'submit', 'pending', 'submitting');
        -- What another branch's step ordered before this one might have added: kept through the rebuild.
        ALTER TABLE items ADD COLUMN extra text NOT NULL DEFAULT 'kept';
        UPDATE items SET extra = 'mine' WHERE id = 'b';
        CREATE INDEX items_by_extra ON items (job_id, extra);`);
      expect(await migrate(pool, 'test')).toBe(SCHEMA_VERSION - 2);
    } finally {
      await pool.end();
    }
    const store = await openStore(url, { job: 'old' });
    try {
      // The rows already there are summed and dated by the step that adds the summaries.
      expect(await store.counts()).toMatchObject({ submitting: 1, downloaded: 1, pending: 0 });
      expect(await store.spend()).toEqual({ reservedUsd: 0.5, actualUsd: 0 });
      expect(await store.activity()).toEqual({ firstAt: 5, lastAt: 5 });
      expect(await store.lastSubmitTimes(['a', 'b'])).toEqual(new Map([['a', 5]]));
      expect(await store.get('a')).toMatchObject({
        seq: 1,
        state: 'submitting',
        attempts: 1,
        reservedUsd: 0.5,
        request: { x: 1 },
        updatedAt: 7,
      });
      expect(await store.get('b')).toMatchObject({ seq: 2, state: 'downloaded', response: { ok: true } });
      expect(await store.events('a')).toEqual([
        { at: 5, event: 'submit', from: 'pending', to: 'submitting', detail: null },
      ]);
      const ingest = await store.beginIngest();
      await ingest.add([
        {
          id: 'c',
          kind: 'chat',
          model: 'm',
          request: { x: 3 },
          contentHash: 'h3',
          sourceFile: 'f.jsonl',
          sourceLine: 3,
          state: 'pending',
        },
      ]);
      await ingest.commit();
      expect((await store.get('c'))!.seq).toBeGreaterThan(2);
      expect((await db.query(`SELECT owner FROM ${old}.items WHERE id = 'a'`)).rows).toEqual([
        { owner: '00000000-0000-4000-8000-000000000001' },
      ]);
      expect((await db.query(`SELECT id, extra FROM ${old}.items ORDER BY seq`)).rows).toEqual([
        { id: 'a', extra: 'kept' },
        { id: 'b', extra: 'mine' },
        { id: 'c', extra: 'kept' },
      ]);
      expect(
        (
          await db.query(
            `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'items' ORDER BY indexname`,
            [old],
          )
        ).rows.map((r) => r.indexname),
      ).toEqual([
        'items_by_error_code',
        'items_by_extra',
        'items_by_model',
        'items_by_state',
        'items_job_id_id_key',
        'items_orphaned',
        'items_pkey',
      ]);
      expect(
        (
          await db.query(
            `SELECT attnotnull FROM pg_attribute WHERE attrelid = '${old}.items'::regclass AND attname = 'extra'`,
          )
        ).rows,
      ).toEqual([{ attnotnull: true }]);
    } finally {
      await store.close();
      await db.query(`DROP SCHEMA ${old} CASCADE`);
    }
  });

  it('refuses a schema newer than this gbatch supports, read-only too, naming both versions', async () => {
    const other = `${db.schema}_newer`;
    await db.query(`CREATE SCHEMA ${other}`);
    try {
      const url = withSearchPath(PG_TEST_URL, other);
      const store = await openStore(url, { job: 'j' });
      await store.close();
      await db.query(`UPDATE ${other}.gbatch_schema_version SET version = ${SCHEMA_VERSION + 1}`);
      const message = `journal schema version ${SCHEMA_VERSION + 1} is newer than this gbatch supports (${SCHEMA_VERSION}); upgrade gbatch`;
      await expect(openStore(url, { job: 'j' })).rejects.toThrow(message);
      await expect(openQueries(url, { job: 'j' })).rejects.toThrow(message);
    } finally {
      await db.query(`DROP SCHEMA ${other} CASCADE`);
    }
  });
});
