// gbatch's sessions ask for compressed full-page images in the WAL where the server lets them, and a role
// that may not ask connects exactly as before (no error, the server's own setting).
import pg from 'pg';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { connectPool } from '../../helpers/journal-raw.js';
import { PG_TEST_URL, pgAvailable } from '../../helpers/postgres.js';

/** wal_compression as a session of gbatch's pool sees it. */
async function poolSetting(url: string): Promise<string> {
  const pool = await connectPool(url);
  try {
    return (await pool.query<{ s: string }>("SELECT current_setting('wal_compression') AS s")).rows[0]!.s;
  } finally {
    await pool.end();
  }
}

describe.skipIf(!pgAvailable())('WAL compression on gbatch sessions', () => {
  const role = `gbatch_plain_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client | undefined;
  afterAll(async () => {
    await admin?.query(`DROP ROLE IF EXISTS ${role}`);
    await admin?.end();
  });

  it("asks before the pool hands the session out: pg's warning of a query queued on a busy client never shows", async () => {
    // In a process of its own: pg warns once per process, and another test file may have made it warn already.
    const built = new URL('../../../dist/journal/postgres/pool.js', import.meta.url);
    expect(existsSync(built), 'npm run build first').toBe(true);
    const script = `const { connectPool } = await import(${JSON.stringify(built.href)});
      const pool = await connectPool(process.env.URL);
      await Promise.all([pool.query('SELECT 1'), pool.query('SELECT 2')]);
      await pool.end();`;
    const { stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, URL: PG_TEST_URL },
    });
    expect(stderr).not.toMatch(/DeprecationWarning/);
  });

  it('a superuser session compresses (lz4 where the server has it), whatever the server is set to', async () => {
    expect(['lz4', 'pglz', 'on']).toContain(await poolSetting(PG_TEST_URL));
  });

  it('a role without the right keeps the server setting, and its connection works', async () => {
    admin = new pg.Client({ connectionString: PG_TEST_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    // A plain client, not gbatch's pool: the server's own setting.
    const server = (await admin.query<{ s: string }>("SELECT current_setting('wal_compression') AS s")).rows[0]!.s;
    const url = new URL(PG_TEST_URL);
    url.username = role;
    expect(await poolSetting(url.toString())).toBe(server);
  });
});
