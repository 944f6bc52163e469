// `gbatch jobs` over real journals: jobs run against the simulator into the SQLite journals of a state
// folder and into one PostgreSQL database, then listed by the CLI as a user runs it. Each job's line
// states its standing, its rows, and the money the simulator's ledger charged.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { BUILT, runCli, stdoutJson } from '../helpers/cli.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../helpers/postgres.js';
import { runInProcess } from '../helpers/run.js';
import { startSim } from '../helpers/sim.js';
import { workspace, type Workspace } from '../helpers/workspace.js';

interface Listed {
  name: string;
  standing: { kind: string; text: string };
  rows: { total: number; finished: number };
  spent_usd: number;
  reserved_usd: number;
  budget_usd: number | null;
  last_activity: string | null;
}

/** Two jobs in `journal(name)`: `alpha` runs its three chat rows to the end, `beta` has a budget too small for any. */
async function twoJobs(sim: Simulator, ws: Workspace, journal: (name: string) => string): Promise<void> {
  const rows = (prefix: string) =>
    writeJsonl(
      ws.path(`${prefix}.jsonl`),
      [1, 2, 3].map((i) => chatRow(`${prefix}-${i}`, `Say ${prefix} ${i}`)),
    );
  const alpha = await runInProcess({
    sim,
    ws,
    manifests: [rows('alpha')],
    extra: { jobName: 'alpha', statePath: journal('alpha') },
  });
  expect(alpha.exitCode).toBe(0);
  const beta = await runInProcess({
    sim,
    ws,
    manifests: [rows('beta')],
    budgetUsd: 0.000001,
    extra: { jobName: 'beta', statePath: journal('beta') },
  });
  expect(beta.exitCode).toBe(3);
}

function expectListed(jobs: Listed[], chargedUsd: number): void {
  expect(jobs.map((j) => [j.name, j.standing.kind, j.rows.finished, j.rows.total])).toEqual([
    ['alpha', 'finished', 3, 3],
    ['beta', 'stopped-on-budget', 0, 3],
  ]);
  const [alpha, beta] = jobs as [Listed, Listed];
  expect(alpha.spent_usd).toBeCloseTo(chargedUsd, 9);
  expect(alpha.spent_usd).toBeGreaterThan(0);
  expect(alpha.budget_usd).toBeNull();
  expect(alpha.last_activity).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(beta).toMatchObject({ spent_usd: 0, reserved_usd: 0, budget_usd: 0.000001 });
  expect(beta.standing.text).toBe('stopped on budget: 3 deferred');
}

const chatCharged = (sim: Simulator): number =>
  sim.ledger.charges.filter((c) => c.kind === 'chat').reduce((sum, c) => sum + c.usd, 0);

describe.skipIf(!BUILT)('gbatch jobs', () => {
  it('lists every SQLite journal of state/: standing, rows, spend against budget, last activity', async () => {
    const ws = workspace();
    const sim = await startSim();
    await twoJobs(sim, ws, (name) => ws.path('state', `${name}.db`));
    // A third like beta, then cancelled by its operator: a cancel, not a stop on the budget.
    const gamma = await runInProcess({
      sim,
      ws,
      manifests: [writeJsonl(ws.path('gamma.jsonl'), [chatRow('gamma-1', 'Say gamma')])],
      budgetUsd: 0.000001,
      extra: { jobName: 'gamma', statePath: ws.path('state', 'gamma.db') },
    });
    expect(gamma.exitCode).toBe(3);
    const cancel = await runCli(['cancel', '--state', ws.path('state', 'gamma.db')], { cwd: ws.dir });
    expect(cancel.code, cancel.stderr).toBe(0);
    writeFileSync(ws.path('state', 'broken.db'), 'not a journal');

    const json = await runCli(['jobs', '--json'], { cwd: ws.dir });
    expect(json.code, json.stderr).toBe(1);
    const listed = stdoutJson<{ journal: string; jobs: Array<Listed & { unreadable?: string }> }>(json);
    expect(listed.journal).toBe('state');
    expect(listed.jobs.find((j) => 'unreadable' in j)).toMatchObject({
      key: 'broken',
      location: join('state', 'broken.db'),
    });
    const readable = listed.jobs.filter((j) => !('unreadable' in j));
    expect(readable.find((j) => j.name === 'gamma')?.standing).toEqual({ kind: 'cancelled', text: 'cancelled' });
    expectListed(
      readable.filter((j) => j.name !== 'gamma'),
      chatCharged(sim),
    );

    const text = await runCli(['jobs', '--state-dir', 'state'], { cwd: ws.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('4 job(s) in state:');
    expect(text.stdout).toMatch(/^alpha +finished +3 \/ 3 +\$\d+\.\d\d \+ \$0\.00 \/ no budget +\d{4}-\d\d-\d\dT/m);
    expect(text.stdout).toMatch(/^beta +stopped on budget: 3 deferred +0 \/ 3 +\$0\.00 \+ \$0\.00 \/ \$0\.00 /m);
    expect(text.stdout).toMatch(/^gamma +cancelled +1 \/ 1 /m);
    expect(text.stdout).not.toMatch(/0 deferred/);
    expect(text.stdout).toMatch(/^broken +unreadable: /m);
  });

  it('a folder with no journal, and one that is not there', async () => {
    const ws = workspace();
    const empty = await runCli(['jobs', '--state-dir', ws.dir]);
    expect(empty).toMatchObject({ code: 0, stdout: `No job in ${ws.dir}.\n` });
    const missing = await runCli(['jobs'], { cwd: ws.dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('state: no such journal or folder (--state-dir)');
  });

  describe.skipIf(!pgAvailable())('on PostgreSQL', () => {
    const db = usePgSchema('gbatch_jobs_cli');

    it('lists every job of the database', async () => {
      const ws = workspace();
      const sim = await startSim();
      await twoJobs(sim, ws, () => db.url());
      const json = await runCli(['jobs', '--journal', db.url(), '--json']);
      expect(json.code, json.stderr).toBe(0);
      expectListed(stdoutJson<{ jobs: Listed[] }>(json).jobs, chatCharged(sim));
      const fromEnv = await runCli(['jobs'], { env: { GBATCH_JOURNAL_URL: db.url() } });
      expect(fromEnv.code).toBe(0);
      expect(fromEnv.stdout).toMatch(/^alpha +finished +3 \/ 3 /m);
      expect(fromEnv.stdout).toMatch(/^beta +stopped on budget: 3 deferred +0 \/ 3 /m);
    });
  });
});
