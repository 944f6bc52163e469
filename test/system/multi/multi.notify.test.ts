// Three runners on one job, each started with the same --notify and --notify-at: the webhook hears the
// job's end once and each budget threshold once (the journal elects the sender), not once per runner.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, describeEnd, gbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { startHook } from '../../helpers/webhook-server.js';
import { RunnerPool, runnerArgs } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-notify';
const ROWS = 12;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-notify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('notifications from three runners of one job', () => {
  const db = usePgSchema('gbatch_multi_notify');

  test('one run-ended body for the job and one body per threshold crossed, whatever the number of runners', async () => {
    assertBuilt();
    // Tasks of 1.5 s: the three runners are all at work, their reservations held, before any ends.
    const sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], seed: 21, taskSeconds: 1.5 });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    const hook = await startHook([]);
    try {
      const manifest = writeJsonl(
        join(dir, 'nightly.jsonl'),
        Array.from({ length: ROWS }, (_, i) => videoRow(`v${i}`, `A night scene, take ${i}`)),
      );
      const plan = await gbatch(['plan', manifest, '--journal', db.url(), '--json'], gateway);
      expect(plan.code, describeEnd('plan', plan)).toBe(0);
      // Every row fits; one row's reservation alone is over 5 % of the budget: each runner's first one crosses it.
      const budget = Number((JSON.parse(plan.stdout).max_usd * 1.01).toFixed(6));
      const pool = new RunnerPool(
        runnerArgs(manifest, db.url(), join(dir, 'out'), [
          '--concurrency',
          '2',
          '--budget',
          String(budget),
          '--notify',
          hook.url,
          '--notify-at',
          '5,99.9',
        ]),
        gateway,
      );
      pool.start(3);
      const ends = await pool.all();
      for (const end of ends) expect(end.code, describeEnd('a runner', end)).toBe(0);
      expect(pool.slots.every((slot) => slot.process.exitCode === 0)).toBe(true);

      const bodies = hook.received.map(
        (r) =>
          r.body as { event: string; exit_code: number | null; threshold_pct?: number; counts: Record<string, number> },
      );
      const ended = bodies.filter((b) => b.event === 'run-ended');
      expect(ended, JSON.stringify(bodies)).toHaveLength(1);
      expect(ended[0]).toMatchObject({ exit_code: 0, counts: expect.objectContaining({ downloaded: ROWS }) });
      const thresholds = bodies.filter((b) => b.event === 'budget-threshold').map((b) => b.threshold_pct);
      expect(thresholds, JSON.stringify(bodies)).toContain(5);
      expect(
        thresholds.filter((t) => t === 5),
        JSON.stringify(bodies),
      ).toHaveLength(1);
      expect(thresholds.filter((t) => t === 99.9)).toHaveLength(0);
      // Each runner that did not report the job's end said so in one line.
      expect(pool.printed().match(/notification \(run-ended\) left to the job's last runner/g)).toHaveLength(2);
    } finally {
      await sim.close();
    }
  }, 90_000);
});
