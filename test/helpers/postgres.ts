// The PostgreSQL server the tests use, and a schema of its own for each test file (dropped afterwards),
// so files running in parallel never see one another's jobs. Without a server the PostgreSQL tests are
// skipped with one loud line (printed once, by the global setup), and fail instead when CI=true.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAvailable: boolean;
  }
}

export const PG_TEST_URL = process.env.GBATCH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether the global setup reached the server (describe.skipIf(!pgAvailable())). */
export function pgAvailable(): boolean {
  return inject('pgAvailable');
}

/** `url` with its connections' search_path set to `schema`. */
export function withSearchPath(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

export interface PgSchema {
  /** The server URL whose connections work in this file's schema. */
  url(): string;
  readonly schema: string;
  /** A client on the schema, for a test's raw look or plant; closed after the file. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<pg.QueryResult<T>>;
}

/** A fresh schema for this test file, created before its tests and dropped (with all it holds) after. */
export function usePgSchema(prefix = 'gbatch_test'): PgSchema {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client | undefined;
  beforeAll(async () => {
    if (!pgAvailable()) return;
    admin = new pg.Client({ connectionString: PG_TEST_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`SET search_path = ${schema}`);
  });
  afterAll(async () => {
    if (!admin) return;
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    admin = undefined;
  });
  return {
    schema,
    url: () => withSearchPath(PG_TEST_URL, schema),
    query: async (sql, values) => {
      if (!admin) throw new Error('usePgSchema: no server, or no test is running');
      return admin.query(sql, values);
    },
  };
}
