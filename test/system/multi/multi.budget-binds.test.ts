// Runners on one PostgreSQL job under a budget that binds for good: room for a few rows' bounds, many more
// rows. Once nothing of the job is in flight anywhere and the next row does not fit, each runner defers
// what it holds and ends by itself (exit 3), as one runner on SQLite does; a row queued behind the one
// waiting for headroom never keeps its runner waiting for ever. Each runner has a deadline: past it, it is
// killed and the test fails. Proven from the simulator's ledger: the gateway's charges stay within the
// budget and equal what the report books.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { videoBound } from '../../../src/core/bound.js';
import { roundUsd } from '../../../src/core/money.js';
import { BUILTIN_PRICING } from '../../../src/core/pricing.js';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, startGbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { endedWithin, readReport, runnerArgs } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-budget-binds';
const ROWS = 30;
const row = (name: string, i: number) => videoRow(`v-${i}`, `${name} clip ${i}`);
/** Room for five rows' bounds: far fewer than the job's rows, whatever each is charged in the end. */
const BUDGET = roundUsd(5 * videoBound('video-mini', row('any', 0), BUILTIN_PRICING));
/** Far past the few seconds the job takes: a runner still running then waits for ever. */
const DEADLINE_MS = 60_000;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-budget-binds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('runners of one job under a budget that binds for good', () => {
  const db = usePgSchema('gbatch_multi_budget_binds');

  test.each([
    { concurrency: 1, seed: 11 },
    { concurrency: 3, seed: 12 },
    { concurrency: 4, seed: 13 },
  ])(
    'two runners at --concurrency $concurrency defer what does not fit and end by themselves (exit 3)',
    async ({ concurrency, seed }) => {
      assertBuilt();
      const sim = await startSimulator({
        accounts: [{ key: API_KEY, balanceUsd: 1000 }],
        seed,
        // Tasks and answers slow enough that rows wait for headroom while the other runner's are in flight.
        taskSeconds: 0.1,
        faults: { latencyMs: 20 },
      });
      const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
      try {
        const job = `binds-${concurrency}`;
        const manifest = writeJsonl(
          join(dir, `${job}.jsonl`),
          Array.from({ length: ROWS }, (_, i) => row(job, i)),
        );
        const args = runnerArgs(manifest, db.url(), join(dir, `out-${job}`), [
          '--concurrency',
          String(concurrency),
          '--budget',
          String(BUDGET),
        ]);
        const ends = await endedWithin([startGbatch(args, gateway), startGbatch(args, gateway)], DEADLINE_MS);
        for (const end of ends) expect(end.code, end.stderr).toBe(3);
        const report = await readReport(job, db.url(), gateway);
        const { downloaded = 0, deferred = 0, ...others } = report.totals.by_state;
        expect(others, 'rows neither downloaded nor deferred').toEqual({});
        expect(downloaded + deferred).toBe(ROWS);
        expect(deferred).toBeGreaterThan(0);
        const charged = sim.ledger.chargesTotal(sim.account(API_KEY).name);
        expect(charged).toBeLessThanOrEqual(BUDGET);
        expect(sim.ledger.tasks).toHaveLength(downloaded);
        expect(report.totals.actual_usd).toBeCloseTo(charged, 8);
        expect(report.totals.reserved_usd).toBe(0);
      } finally {
        await sim.close();
      }
    },
    DEADLINE_MS + 30_000,
  );
});
