// Issue 32 item 1: `status --check` on a PostgreSQL journal whose three runners are live (on other hosts, their
// heartbeats fresh) and whose last run has not recorded its end: the job is running, nothing needs an operator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, describeEnd, gbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { runnerArgs } from '../../helpers/runners.js';

const API_KEY = 'sk-status-live';
const dir = mkdtempSync(join(tmpdir(), 'gbatch-status-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('status --check and live runners', () => {
  const db = usePgSchema('gbatch_status_live');

  test('three live runners and no recorded ending: running, exit 0; with none live it is a crash', async () => {
    assertBuilt();
    const sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], seed: 7 });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    try {
      const manifest = writeJsonl(join(dir, 'night.jsonl'), [chatRow('c1', 'one'), chatRow('c2', 'two')]);
      const ran = await gbatch(runnerArgs(manifest, db.url(), join(dir, 'out')), gateway);
      expect(ran.code, describeEnd('run', ran)).toBe(0);
      // Three runners on three other hosts, beating now; the last run is the third's, its end not yet recorded.
      const now = Date.now();
      for (const n of [1, 2, 3])
        await db.query(
          `INSERT INTO runners (job_id, runner_id, pid, host, process_start, started_at, heartbeat_at, lease_until)
          SELECT id, $2, $3, $4, NULL, $5, $5, $6 FROM jobs WHERE name = $1`,
          ['night', `00000000-0000-4000-8000-00000000000${n}`, 100 + n, `night-host-${n}`, now, now + 3_600_000],
        );
      await db.query(
        `INSERT INTO runs (job_id, pid, host, started_at) SELECT id, 103, 'night-host-3', $2 FROM jobs WHERE name = $1`,
        ['night', now],
      );
      await db.query(`UPDATE items SET state = 'pending' WHERE id = 'c2'`);

      const check = await gbatch(['status', 'night', '--journal', db.url(), '--check'], gateway);
      expect(check.stdout).not.toMatch(/ended without recording how/);
      expect(check.code, describeEnd('status --check', check)).toBe(0);
      const json = JSON.parse((await gbatch(['status', 'night', '--journal', db.url(), '--json'], gateway)).stdout) as {
        standing: { kind: string; label: string };
        last_run: { running: boolean };
      };
      expect(json.standing).toMatchObject({ kind: 'running', label: 'running (3 runners)' });
      expect(json.last_run.running).toBe(true);

      // The runners gone (their heartbeats long stale) and nothing recorded: that is a crash to look at.
      await db.query('UPDATE runners SET heartbeat_at = 0, lease_until = 0');
      const crashed = await gbatch(['status', 'night', '--journal', db.url(), '--check'], gateway);
      expect(crashed.stdout).toMatch(/ended without recording how/);
      expect(crashed.code).toBe(1);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
