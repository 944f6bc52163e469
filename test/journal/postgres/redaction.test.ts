// A database password never reaches a message: not the store's location, not a connection error.
import { describe, expect, it } from 'vitest';
import { openStore, openQueries } from '../../../src/journal/index.js';
import { ConfigError } from '../../../src/core/config-error.js';
import { redactDatabaseUrl } from '../../helpers/journal-raw.js';
import { pgAvailable, PG_TEST_URL } from '../../helpers/postgres.js';

const SECRET = 'Sup3r-s3cret';

async function failure(url: string): Promise<Error> {
  try {
    const store = await openStore(url, { job: 'j' });
    await store.close();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the open to fail');
}

describe('redactDatabaseUrl', () => {
  it('keeps user, host, port and database; replaces the password; drops the query', () => {
    expect(redactDatabaseUrl(`postgres://gb:${SECRET}@db.example:6543/jobs?sslmode=require&password=${SECRET}`)).toBe(
      'postgres://gb:***@db.example:6543/jobs',
    );
    expect(redactDatabaseUrl('postgresql://postgres@127.0.0.1:5432/test')).toBe(
      'postgresql://postgres@127.0.0.1:5432/test',
    );
    expect(redactDatabaseUrl(`postgres://gb:${encodeURIComponent('p@ss/word')}@h/db`)).toBe('postgres://gb:***@h/db');
    expect(redactDatabaseUrl(`postgres://gb:${SECRET}@[broken/db`)).not.toContain(SECRET);
  });
});

describe.skipIf(!pgAvailable())('PostgreSQL connection errors', () => {
  it('a closed port: a ConfigError naming the redacted URL and the reason', async () => {
    const err = await failure(`postgres://postgres:${SECRET}@127.0.0.1:1/test`);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe('postgres://postgres:***@127.0.0.1:1/test: cannot connect (ECONNREFUSED)');
    expect(JSON.stringify(err) + String(err.stack)).not.toContain(SECRET);
  });

  it('the real server, a database that does not exist: the server says why, the password stays out', async () => {
    const real = new URL(PG_TEST_URL);
    real.password = SECRET;
    real.pathname = '/gbatch_no_such_database';
    const err = await failure(real.toString());
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(
      `${redactDatabaseUrl(real.toString())}: cannot connect (database "gbatch_no_such_database" does not exist)`,
    );
    expect(err.message).toContain(':***@');
    expect(JSON.stringify(err) + String(err.stack)).not.toContain(SECRET);
  });

  it('a URL that is not one: a ConfigError without the password', async () => {
    const err = await failure(`postgres://postgres:${SECRET}@[not-a-host/test`);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('not a usable PostgreSQL URL');
    expect(err.message).not.toContain(SECRET);
  });

  it('the store names itself by the redacted URL', async () => {
    const real = new URL(PG_TEST_URL);
    real.password = SECRET;
    const store = await openQueries(real.toString(), { job: 'redaction' });
    try {
      expect(store.location).toBe(redactDatabaseUrl(real.toString()));
      expect(store.location).not.toContain(SECRET);
    } finally {
      await store.close();
    }
  });
});
