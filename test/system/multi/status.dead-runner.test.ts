// `status` on a PostgreSQL journal after a runner died: once the job is finished (or its rows were taken
// over) a dead runner that holds nothing is not listed as if something were still to be taken over; one
// that still holds rows with no live runner left says the next run takes them over, not "the others".
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, describeEnd, gbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { deadPid } from '../../helpers/dead-pid.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { runnerArgs } from '../../helpers/runners.js';

const API_KEY = 'sk-status-dead';
const DEAD_RUNNER = '00000000-0000-4000-8000-0000000000d1';

const dir = mkdtempSync(join(tmpdir(), 'gbatch-status-dead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('status and a runner that died', () => {
  const db = usePgSchema('gbatch_status_dead');

  test('the job finished: a dead runner holding nothing is not listed; holding rows with no one live: "the next run takes them over"', async () => {
    assertBuilt();
    const sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], seed: 5 });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    try {
      const manifest = writeJsonl(join(dir, 'finished.jsonl'), [chatRow('c1', 'one'), chatRow('c2', 'two')]);
      const ran = await gbatch(runnerArgs(manifest, db.url(), join(dir, 'out')), gateway);
      expect(ran.code, describeEnd('run', ran)).toBe(0);
      // A runner of this host that died (its process gone) after its rows were done: its row stays behind.
      await db.query(
        `INSERT INTO runners (job_id, runner_id, pid, host, process_start, started_at, heartbeat_at, lease_until)
        SELECT id, $2, $3, $4, NULL, 0, 0, 9999999999999 FROM jobs WHERE name = $1`,
        ['finished', DEAD_RUNNER, await deadPid(), hostname()],
      );

      const status = (...extra: string[]) => gbatch(['status', 'finished', '--journal', db.url(), ...extra], gateway);
      const text = await status();
      expect(text.code, describeEnd('status', text)).toBe(0);
      expect(text.stdout).not.toMatch(/DEAD|take its rows over|takes? them over/);
      const json = JSON.parse((await status('--json')).stdout) as {
        runners: Array<{ runner_id: string; alive: boolean; rows: number }>;
      };
      expect(json.runners).toEqual([expect.objectContaining({ runner_id: DEAD_RUNNER, alive: false, rows: 0 })]);

      // The same dead runner holding a task in flight, and no live runner: the next run takes it over.
      await db.query(`UPDATE items SET state = 'submitted', owner = $1 WHERE id = 'c2'`, [DEAD_RUNNER]);
      const holding = await status();
      expect(holding.stdout).toMatch(
        new RegExp(
          `runner ${DEAD_RUNNER}: pid \\d+ on \\S+, DEAD \\(last heartbeat .+\\), 1 row\\(s\\) held: the next \`gbatch run\` takes them over`,
        ),
      );
      expect(holding.stdout).not.toMatch(/the others/);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
