// Finds out once, before any test file runs, whether the PostgreSQL test server answers. The tests
// that need it read the answer (inject('pgAvailable')); without one they are skipped with ONE line
// here, or, with CI=true, the run fails: a CI without its database must not pass green.
import pg from 'pg';
import type { TestProject } from 'vitest/node';

const url = process.env.GBATCH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function redacted(text: string): string {
  return text.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

export default async function setup(project: TestProject): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  let reason: string | undefined;
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    reason = (err as { code?: string }).code ?? (err as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
  if (reason !== undefined) {
    const line = `PostgreSQL tests SKIPPED: no server at ${redacted(url)} (${reason}); set GBATCH_TEST_PG_URL`;
    if (process.env.CI === 'true') throw new Error(line.replace('SKIPPED', 'FAILED (CI=true)'));
    console.warn(`\n*** ${line} ***\n`);
  }
  project.provide('pgAvailable', reason === undefined);
}
