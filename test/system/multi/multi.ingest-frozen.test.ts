// A runner frozen (SIGSTOP) while its COPY ingest is under way loses its lease; the next runner ends its
// database session and ingests. Resumed (SIGCONT), the frozen runner finds its session gone: it must end
// as a handled stop (exit 75, one line naming the lost lease), never exit 0 with nothing said, whatever
// step of the COPY the termination reaches it in. Several rounds, so the race is hit.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { assertBuilt, describeEnd, type Gateway, type GbatchChild } from '../../helpers/crash/gbatch-child.js';
import { stoppableRunners } from '../../helpers/frozen-past-lease.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';

const LEASE_MS = 3000;
const ROWS = 60_000;
const ROUNDS = 3;
const GATEWAY: Gateway = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: '' };

const runners = stoppableRunners('gbatch-ingest-frozen-');

describe.skipIf(!pgAvailable())('a runner frozen in its COPY ingest, its session ended by the next runner', () => {
  const db = usePgSchema('gbatch_multi_ingest_frozen');

  test('resumed, it exits 75 naming the lost lease, never 0 silently', async () => {
    assertBuilt();
    const manifest = writeJsonl(
      join(runners.dir, 'rows.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`row-${i}`, `frozen ingest row ${i}`)),
    );
    const env = { GBATCH_LOCK_STALE_MS: String(LEASE_MS) };
    for (let round = 0; round < ROUNDS; round++) {
      const file = join(runners.dir, `frozen${round}.jsonl`);
      copyFileSync(manifest, file);
      const ingest = (): GbatchChild =>
        runners.start(
          ['run', file, '--journal', db.url(), '--out', join(runners.dir, `out-${round}`), '--ingest-only', '--quiet'],
          GATEWAY,
          env,
        );
      const frozen = ingest();
      await copyUnderWay(db, frozen.process.pid!, round);
      frozen.process.kill('SIGSTOP');
      const other = ingest();
      await said(other, 'its database session was ended');
      frozen.process.kill('SIGCONT');
      const resumed = await frozen.ended;
      expect(resumed.code, describeEnd(`round ${round}: the resumed runner`, resumed)).toBe(75);
      expect(resumed.stderr, describeEnd(`round ${round}: the resumed runner`, resumed)).toMatch(/lease|lock/);
      const second = await other.ended;
      expect(second.code, describeEnd(`round ${round}: the other runner`, second)).toBe(0);
    }
  }, 120_000);
});

/** Resolves once the runner's session is in a COPY into the job (a pass is under way, rows on the wire). */
async function copyUnderWay(db: ReturnType<typeof usePgSchema>, pid: number, round: number): Promise<void> {
  // Waiting on the server's own view of the session: there is no event to await from outside the process.
  for (let i = 0; i < 3000; i++) {
    const seen = await db
      .query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity a JOIN runners r ON a.application_name = 'gbatch runner ' || r.runner_id::text
      WHERE r.pid = $1 AND a.query LIKE 'COPY %' AND a.state = 'active'`,
        [pid],
      )
      .catch((err: { code?: string }) => {
        if (err.code === '42P01') return undefined; // the runner has not made the journal's tables yet
        throw err;
      });
    if ((seen?.rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`round ${round}: the runner's COPY was never seen`);
}

function said(child: GbatchChild, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let all = '';
    child.process.stderr!.on('data', (chunk: string) => {
      all += chunk;
      if (all.includes(text)) resolve();
    });
    void child.ended.then((e) => reject(new Error(`ended before saying "${text}": ${describeEnd('runner', e)}`)));
  });
}
