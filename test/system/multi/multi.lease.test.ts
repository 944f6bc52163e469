// A runner frozen (SIGSTOP) past its lease loses its rows to the other runners: its `submitting` rows
// become uncertain, the rest is done by others. Resumed (SIGCONT), it notices at its first journal
// write or before its next send, and sends nothing more: not one request reaches the gateway from it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, describeEnd, gbatch, startGbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { watchSimulator } from '../../helpers/crash/sim-watch.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { readReport, runnerArgs } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-lease';
const LEASE_MS = 1500;
const ROWS = 40;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-lease-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('a runner frozen past its lease', () => {
  const db = usePgSchema('gbatch_multi_lease');

  test('after SIGCONT it sends nothing for the rows it lost, and exits 75', async () => {
    assertBuilt();
    // Each answer takes 400 ms: the frozen runner has requests in flight and rows claimed.
    const sim = await startSimulator({
      accounts: [{ key: API_KEY, balanceUsd: 100 }],
      seed: 3,
      faults: { latencyMs: 400 },
    });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    const watch = watchSimulator(sim);
    try {
      const manifest = writeJsonl(
        join(dir, 'lease.jsonl'),
        Array.from({ length: ROWS }, (_, i) => chatRow(`row-${i}`, `lease test row ${i}`)),
      );
      const env = { GBATCH_LOCK_STALE_MS: String(LEASE_MS) };
      const args = runnerArgs(manifest, db.url(), join(dir, 'out'), ['--concurrency', '2']);
      const frozen = startGbatch(args, gateway, undefined, env);
      await new Promise<void>((resolve) => {
        let posts = 0;
        watch.events.on('request', (entry) => {
          if (entry.method === 'POST' && ++posts === 3) resolve();
        });
      });
      frozen.process.kill('SIGSTOP');

      // Another runner joins, waits out the frozen one's lease, takes over and finishes the job.
      const other = await startGbatch(args, gateway, undefined, env).ended;
      expect([0, 4], describeEnd('the other runner', other)).toContain(other.code);
      const before = await readReport('lease', db.url(), gateway);
      expect(
        before.items
          .filter((i) => i.state !== 'downloaded' && i.state !== 'uncertain')
          .map((i) => `${i.id}: ${i.state}`),
      ).toEqual([]);
      await watch.quiet(200);
      const postsBefore = sim.ledger.requests.filter((r) => r.method === 'POST').length;

      // status --json names the frozen runner and flags it dead (its rows were taken over: it holds none now);
      // the text, the job being finished, has nothing to say about it.
      const status = await gbatch(['status', 'lease', '--journal', db.url(), '--json'], gateway);
      const runners = (JSON.parse(status.stdout) as { runners: Array<{ pid: number; alive: boolean; rows: number }> })
        .runners;
      expect(runners.find((r) => r.pid === frozen.process.pid)).toMatchObject({ alive: false, rows: 0 });
      const text = await gbatch(['status', 'lease', '--journal', db.url()], gateway);
      expect(text.stdout).not.toMatch(/DEAD|take its rows over/);

      frozen.process.kill('SIGCONT');
      const resumed = await frozen.ended;
      expect(resumed.code, describeEnd('the resumed runner', resumed)).toBe(75);
      expect(resumed.stderr).toMatch(/lost its (lock|lease)/);
      await watch.quiet(200);
      expect(sim.ledger.requests.filter((r) => r.method === 'POST').length, 'requests the resumed runner sent').toBe(
        postsBefore,
      );
      // No row was sent twice, and the rows it lost stayed as the other runner left them.
      expect(Object.values(sim.ledger.submissionsByPrompt()).filter((n) => n > 1)).toEqual([]);
      const after = await readReport('lease', db.url(), gateway);
      expect(after.items.map((i) => `${i.id}: ${i.state}`)).toEqual(before.items.map((i) => `${i.id}: ${i.state}`));
    } finally {
      await sim.close();
    }
  }, 60_000);
});
