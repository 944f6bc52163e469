// Issue 11's headline proof: three runners share one job on one PostgreSQL journal, with --budget
// binding; one of them is SIGKILLed at seeded random instants and started again. From the simulator's
// ledger: no duplicate task or call gbatch made on its own, no row lost, every file verified, the
// gateway's spend within the budget, and the report's actual equal to the ledger's charges.
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { writeCampaign } from '../../helpers/crash/campaign.js';
import { assertBuilt, describeEnd, gbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { decideResolution } from '../../helpers/crash/operator.js';
import { createPrng } from '../../helpers/crash/prng.js';
import { expectMoneyReconciled, SERVED_SHA256, sha256 } from '../../helpers/crash/proof.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { readReport, RunnerPool, runnerArgs, type ReportJson } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-crash';
const SIZE = { chat: 200, responses: 60, video: 140 };
const KILLS = 6;
/** One seed in `npm test` (it takes ~30 s); more with GBATCH_MULTI_SEEDS=101,202,303. */
const SEEDS = (process.env.GBATCH_MULTI_SEEDS ?? '101').split(',').map(Number);
/** A budget this share of the campaign's estimate: binding, so some rows are deferred. */
const BUDGET_SHARE = 0.5;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!pgAvailable())('three runners on one PostgreSQL journal under SIGKILL', () => {
  const db = usePgSchema('gbatch_multi_crash');

  test.each(SEEDS)(
    'seed %i: a 400-row campaign with --budget binding; one runner killed at random instants and restarted',
    async (seed) => {
      assertBuilt();
      const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-'));
      dirs.push(dir);
      const sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 10_000 }], taskSeconds: 0.3, seed });
      const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
      const log: string[] = [`seed ${seed}`];
      try {
        const campaign = writeCampaign(dir, `multi-${seed}`, SIZE);
        const job = `crash-multi-${seed}`;
        const planned = await gbatch(['plan', campaign.jobFile, '--json'], gateway);
        const budget =
          Math.round((JSON.parse(planned.stdout) as { estimated_usd: number }).estimated_usd * BUDGET_SHARE * 100) /
          100;
        log.push(`budget ${budget} USD`);
        const outDir = join(dir, 'out');
        const args = runnerArgs(campaign.jobFile, db.url(), outDir, ['--budget', String(budget)]);
        const pool = new RunnerPool(args, gateway, { GBATCH_LOCK_STALE_MS: '3000' });
        pool.start(3);

        const prng = createPrng(seed);
        let kills = 0;
        while (kills < KILLS) {
          // a random instant: the point of the test
          await new Promise((resolve) => setTimeout(resolve, prng.between(150, 1500)));
          const running = pool.running();
          if (running.length === 0) break;
          const slot = running[prng.int(0, running.length - 1)]!;
          pool.slots[slot]!.kill();
          const ended = await pool.slots[slot]!.ended;
          if (ended.signal === 'SIGKILL') kills++;
          log.push(
            `kill ${kills}: runner ${slot} ${ended.signal ? 'killed' : `had exited ${ended.code}`} (ledger ${sim.ledger.requests.length} requests)`,
          );
          pool.restart(slot);
        }
        const ends = await pool.all();
        log.push(`runners ended: ${ends.map((e) => e.code ?? e.signal).join(', ')}`);
        for (const end of ends) expect([0, 3, 4, 75], describeEnd('a runner', end)).toContain(end.code);
        expect(kills, log.join('\n')).toBeGreaterThanOrEqual(3);

        // The operator: each uncertain row decided from the gateway's history, then one more run.
        const lostChargedCalls = new Map<string, number>();
        let printed = pool.printed();
        for (let round = 0; round < 5; round++) {
          const now = await readReport(job, db.url(), gateway);
          const uncertain = now.items.filter((i) => i.state === 'uncertain');
          const open = now.items.filter((i) => !['downloaded', 'deferred', 'uncertain'].includes(i.state));
          if (uncertain.length === 0 && open.length === 0) break;
          const history = { tasks: sim.ledger.tasks, submissionsByPrompt: sim.ledger.submissionsByPrompt() };
          for (const item of uncertain) {
            const row = campaign.rows.find((r) => r.id === item.id)!;
            const decision = decideResolution(row, history);
            if (decision.kind === 'resubmit' && row.kind !== 'video')
              lostChargedCalls.set(row.id, decision.chargedCalls);
            // A row the gateway never charged is resent --not-billed (the history says so): its bound is released.
            const choice =
              decision.kind === 'attach'
                ? ['--task-id', decision.taskId]
                : ['--resubmit', ...(decision.chargedCalls === 0 ? ['--not-billed'] : [])];
            const ended = await gbatch(['resolve', job, item.id, '--journal', db.url(), ...choice], gateway);
            printed += ended.stdout + ended.stderr;
            expect(ended.code, describeEnd(`resolve ${item.id}`, ended)).toBe(0);
            log.push(`resolve ${item.id}: ${choice.join(' ')}`);
          }
          const again = await gbatch(args, gateway);
          printed += again.stdout + again.stderr;
          log.push(`operator's run ${round}: exit ${again.code}`);
        }

        const report = await readReport(job, db.url(), gateway);
        proveUnderBudget({ campaign, report, sim, budget, outDir, lostChargedCalls, why: `\n${log.join('\n')}` });
        expect(printed.includes(API_KEY), 'the API key in command output').toBe(false);
      } finally {
        await sim.close();
      }
    },
    180_000,
  );
});

interface Proof {
  campaign: ReturnType<typeof writeCampaign>;
  report: ReportJson;
  sim: Awaited<ReturnType<typeof startSimulator>>;
  budget: number;
  outDir: string;
  lostChargedCalls: ReadonlyMap<string, number>;
  why: string;
}

function proveUnderBudget({ campaign, report, sim, budget, outDir, lostChargedCalls, why }: Proof): void {
  const items = new Map(report.items.map((item) => [item.id, item]));
  // No row lost: every manifest row is in the journal, downloaded or held back by the budget.
  expect(report.items.map((i) => i.id).sort(), why).toEqual(campaign.rows.map((r) => r.id).sort());
  expect(
    report.items.filter((i) => !['downloaded', 'deferred'].includes(i.state)).map((i) => `${i.id}: ${i.state}`),
    why,
  ).toEqual([]);
  expect(report.totals.by_state.deferred ?? 0, `the budget bound: some rows deferred${why}`).toBeGreaterThan(0);

  const calls = sim.ledger.submissionsByPrompt();
  for (const row of campaign.rows) {
    const item = items.get(row.id)!;
    const done = item.state === 'downloaded';
    if (row.kind === 'video') {
      const tasks = sim.ledger.tasks.filter((t) => t.prompt === row.prompt);
      // Never a second task for a row; a deferred row has none.
      expect(
        tasks.map((t) => t.id),
        `video row ${row.id} (${item.state}): tasks upstream${why}`,
      ).toEqual(done ? [item.task_id] : []);
      if (!done) continue;
      expect(item.actual_usd, `video row ${row.id}: actual vs the gateway's charge`).toBeCloseTo(
        tasks[0]!.chargedUsd,
        8,
      );
      expect(existsSync(item.output!), `video row ${row.id}: ${item.output} on disk`).toBe(true);
      expect(sha256(readFileSync(item.output!)), `video row ${row.id}: the bytes the simulator served`).toBe(
        SERVED_SHA256,
      );
      expect(item.sha256).toBe(SERVED_SHA256);
    } else {
      const expected = (done ? 1 : 0) + (lostChargedCalls.get(row.id) ?? 0);
      expect(calls[row.prompt] ?? 0, `${row.kind} row ${row.id} (${item.state}): charged calls upstream${why}`).toBe(
        expected,
      );
    }
  }
  const videos = readdirSync(outDir)
    .filter((f) => f.endsWith('.mp4') && !f.startsWith('.'))
    .sort();
  expect(videos, 'one file per downloaded video row').toEqual(
    report.items
      .filter((i) => i.kind === 'video' && i.state === 'downloaded')
      .map((i) => `${i.id}.mp4`)
      .sort(),
  );
  const lines = readFileSync(join(outDir, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const ids = lines.map((l) => (JSON.parse(l) as { custom_id: string }).custom_id).sort();
  expect(ids, `results.jsonl: one line per downloaded row${why}`).toEqual(
    report.items
      .filter((i) => i.state === 'downloaded')
      .map((i) => i.id)
      .sort(),
  );

  // Money: what the gateway charged never passed the budget, and the report says exactly what it charged
  // (less the calls the operator knowingly sent again, each the same request at the same price).
  const charged = sim.ledger.chargesTotal(sim.account(API_KEY).name);
  expect(charged, `the gateway's spend ${charged} within the budget ${budget}${why}`).toBeLessThanOrEqual(
    budget + 1e-9,
  );
  const lostUsd = [...lostChargedCalls].reduce((sum, [id, n]) => sum + n * (items.get(id)!.actual_usd ?? 0), 0);
  expectMoneyReconciled(report.totals, lostChargedCalls, lostUsd, charged, why);
}
