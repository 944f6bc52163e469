// Issue 3's headline proof: SIGKILL `gbatch run` (a real child process) at random instants of a mixed
// campaign, restart it each time, resolve what is uncertain as an operator would, and prove from the
// simulator's ledger that nothing was lost, duplicated or mis-billed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { writeCampaign, type Campaign } from '../../helpers/crash/campaign.js';
import { assertBuilt, describeEnd, gbatch, runArgs, type Ended } from '../../helpers/crash/gbatch-child.js';
import type { Baseline } from '../../helpers/crash/kill-plan.js';
import { runUntilDone } from '../../helpers/crash/kill-loop.js';
import { proveCampaign, readReport } from '../../helpers/crash/proof.js';
import { watchSimulator } from '../../helpers/crash/sim-watch.js';

const API_KEY = 'sk-crash-test';
const TASK_SECONDS = 0.3;
/** One seed in `npm test` (each takes ~15-30 s); more with GBATCH_CRASH_SEEDS=11,29,47. */
const SEEDS = (process.env.GBATCH_CRASH_SEEDS ?? '47').split(',').map(Number);
const KILLS_PER_CAMPAIGN = 8;

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gbatch-crash-'));
  dirs.push(dir);
  return dir;
}

function simulator(): Promise<Simulator> {
  return startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 1000 }], taskSeconds: TASK_SECONDS, seed: 7 });
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('gbatch run under SIGKILL', () => {
  let control: { sim: Simulator; campaign: Campaign; dir: string; ended: Ended; baseline: Baseline };

  beforeAll(async () => {
    assertBuilt();
    const dir = tempDir();
    const sim = await simulator();
    const campaign = writeCampaign(dir, 'control');
    const startedAt = Date.now();
    const ended = await gbatch(runArgs(campaign.jobFile, dir), { baseUrl: sim.baseUrl, apiKey: API_KEY });
    control = {
      sim,
      campaign,
      dir,
      ended,
      baseline: { durationMs: Date.now() - startedAt, requests: sim.ledger.requests.length },
    };
  });

  afterAll(async () => {
    await control?.sim.close();
  });

  test('control: an uninterrupted run of the campaign reconciles exactly with the ledger', async () => {
    const { sim, campaign, dir, ended } = control;
    expect(ended.code, describeEnd('gbatch run', ended)).toBe(0);
    const report = await readReport(`${dir}/j.db`, { baseUrl: sim.baseUrl, apiKey: API_KEY });
    proveCampaign({
      campaign,
      sim,
      apiKey: API_KEY,
      report,
      outDir: `${dir}/out`,
      lostChargedCalls: new Map(),
      history: 'one run, no kill',
      workDir: dir,
      printed: ended.stdout + ended.stderr,
    });
  });

  test.each(SEEDS)(
    'seed %i: killed at random instants and restarted, no row is lost, duplicated or mis-billed',
    async (seed) => {
      const dir = tempDir();
      const sim = await simulator();
      try {
        const simWatch = watchSimulator(sim);
        const gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
        const campaign = writeCampaign(dir, `seed-${seed}`);
        const outcome = await runUntilDone({
          campaign,
          dir,
          sim,
          watch: simWatch,
          gateway,
          seed,
          maxKills: KILLS_PER_CAMPAIGN,
          baseline: control.baseline,
        });
        const history = outcome.log.join('\n');
        // The schedule must actually have killed runs, or this test proves nothing.
        expect(outcome.kills, history).toBeGreaterThanOrEqual(KILLS_PER_CAMPAIGN / 2);
        const report = await readReport(`${dir}/j.db`, gateway);
        proveCampaign({
          campaign,
          sim,
          apiKey: API_KEY,
          report,
          outDir: `${dir}/out`,
          lostChargedCalls: outcome.lostChargedCalls,
          history,
          workDir: dir,
          printed: outcome.printed,
        });
      } finally {
        await sim.close();
      }
    },
    60_000,
  );
});
