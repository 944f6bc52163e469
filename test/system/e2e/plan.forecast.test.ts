// The plan's forecast is learned from what was billed, and its verdict is the one the run then acts on.
// A gateway that delivers (and bills) 480p videos at 720p: a first job teaches the history; the second job's
// plan then forecasts a range holding its actual cost, where the table's estimate does not; and for budgets
// from 50 % to 150 % of the estimate, plan's "finishes" / "stops short" is what run does, with the hard cap
// holding (billed <= budget) every time, on SQLite and on PostgreSQL.
import { copyFileSync, existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { forecastRun, startDearerGateway, videoThenChats } from '../../helpers/forecast-jobs.js';
import type { HostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

const BUDGET_SHARES = [0.5, 0.625, 0.75, 0.875, 1, 1.125, 1.25, 1.375, 1.5];

interface Where {
  /** The journal arguments of a job's commands. */
  args(job: string): string[];
  /** Makes the teacher's history readable by `job`'s plan (SQLite: an import; PostgreSQL: shared already). */
  teach(job: string): Promise<void>;
}

async function proveVerdicts(ws: Workspace, gw: HostileGateway, where: Where): Promise<void> {
  const env = gatewayEnv(gw.baseUrl, gw.key);
  const run = forecastRun(ws, env, (job) => where.args(job));

  const teacher = writeJsonl(ws.path('teacher.jsonl'), videoThenChats('t', 3));
  const taught = stdoutJson(await run(teacher, 'teacher', []));
  expect(taught.exit_code).toBe(0);

  // The second job without a budget: the forecast holds its actual cost; the table's estimate does not.
  // The video's bound (1080p) is about 0.7 of the job's estimate.
  const rows = videoThenChats('m', 6);
  const whole = writeJsonl(ws.path('whole.jsonl'), rows);
  await where.teach('whole');
  const plan = stdoutJson(await runCli(['plan', whole, ...where.args('whole'), '--json'], { env }));
  const before = gw.billedUsd();
  const done = stdoutJson(await run(whole, 'whole', []));
  expect(done.exit_code).toBe(0);
  const actual = done.spent_usd as number;
  expect(gw.billedUsd() - before).toBeCloseTo(actual, 6);
  expect(plan.forecast.basis_rows).toBeGreaterThan(0);
  expect(plan.forecast.p50_usd).toBeLessThanOrEqual(actual + 1e-6);
  expect(plan.forecast.p90_usd).toBeGreaterThanOrEqual(actual - 1e-6);
  expect(Math.abs(plan.estimated_usd - actual)).toBeGreaterThan(0.01);

  const verdicts: string[] = [];
  for (const [k, share] of BUDGET_SHARES.entries()) {
    const job = `budget${k}`;
    const manifest = ws.path(`${job}.jsonl`);
    copyFileSync(whole, manifest);
    await where.teach(job);
    const budget = Math.round(plan.estimated_usd * share * 1e6) / 1e6;
    const planned = await runCli(['plan', manifest, ...where.args(job), '--budget', String(budget), '--json'], { env });
    const judged = stdoutJson(planned);
    const billedBefore = gw.billedUsd();
    const result = stdoutJson(await run(manifest, job, ['--budget', String(budget)]));
    const finished = judged.verdict !== 'likely_stops_short';
    const said = `${job} at $${budget}: plan ${judged.verdict} (exit ${planned.code}), run exit ${result.exit_code}`;
    verdicts.push(judged.verdict);
    // plan's exit code follows its verdict, and run's follows plan's.
    expect(planned.code, said).toBe(finished ? 0 : 3);
    expect(result.exit_code, said).toBe(planned.code);
    // The hard cap: the journal's ledger and the gateway's own.
    expect(result.spent_usd, said).toBeLessThanOrEqual(budget);
    expect(gw.billedUsd() - billedBefore, said).toBeLessThanOrEqual(budget + 1e-9);
  }
  // The budgets cover both answers, so agreement is not had for free.
  expect(verdicts).toContain('likely_stops_short');
  expect(verdicts.some((v) => v !== 'likely_stops_short')).toBe(true);
}

test.skipIf(!BUILT)(
  'SQLite: the verdict agrees with the run at nine budgets; the forecast holds the actual cost',
  async () => {
    const ws = workspace();
    const gw = await startDearerGateway();
    const state = (job: string) => ws.path(`${job}.db`);
    const taught = state('taught');
    await proveVerdicts(ws, gw, {
      args: (job) => ['--state', state(job)],
      teach: async (job) => {
        // The import is proven once, on a journal of its own; each job's journal starts as a copy of it (what
        // the same import gives), so the nine budgets cost no 18 more CLI starts.
        if (!existsSync(taught)) {
          const imported = await runCli(['history', 'import', state('teacher'), '--state', taught]);
          expect(imported.code, imported.stderr).toBe(0);
          expect(imported.stdout).toMatch(/: 4 settled row\(s\) added from .*teacher\.db \(4 read; 0 already there\)/);
          const again = await runCli(['history', 'import', state('teacher'), '--state', taught]);
          expect(again.stdout).toMatch(/: 0 settled row\(s\) added .*\(4 read; 4 already there\)/);
          expect(existsSync(`${taught}-wal`), 'the import leaves its journal checkpointed').toBe(false);
        }
        copyFileSync(taught, state(job));
      },
    });
  },
  400_000,
);

describe.skipIf(!BUILT || !pgAvailable())('PostgreSQL', () => {
  const db = usePgSchema('gbatch_forecast');
  test('the verdict agrees with the run at nine budgets; every job of the database learns from the history', async () => {
    const ws = workspace();
    const gw = await startDearerGateway();
    await proveVerdicts(ws, gw, {
      args: () => ['--journal', db.url()],
      teach: async () => {},
    });
  }, 400_000);
});
