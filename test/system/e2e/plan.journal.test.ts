// `plan` tells the truth `run` will act on: it reads the job's journal (read-only, never creating it),
// refuses what run refuses with run's own words, counts only what is left to send, and exits 3 when the
// job does not fit its budget.
import { existsSync, writeFileSync } from 'node:fs';
import { expect, onTestFinished, test } from 'vitest';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

function twoManifestJob(ws: Workspace, second: Array<Record<string, unknown>>): string {
  writeJsonl(ws.path('a.jsonl'), [chatRow('a1', 'First'), chatRow('shared', 'The same question')]);
  writeJsonl(ws.path('b.jsonl'), second);
  const job = ws.path('job.json');
  writeFileSync(job, JSON.stringify({ name: 'two', manifest: ['a.jsonl', 'b.jsonl'] }));
  return job;
}

test.skipIf(!BUILT)(
  "duplicate ids across a job's manifests: plan refuses exactly what run refuses (exit 2), and creates no journal",
  async () => {
    const ws = workspace();
    const job = twoManifestJob(ws, [chatRow('b1', 'Second'), chatRow('shared', 'A different question')]);
    // Run from the workspace: the job's journal would be state/two.db there.
    const plan = await runCli(['plan', job], { cwd: ws.dir });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    const refusal = `${ws.path('b.jsonl')}:2 row 'shared': already in the journal (from ${ws.path('a.jsonl')}:2) with different content; give the changed row a new id`;
    expect(plan.stderr.trim()).toBe(refusal);
    expect(plan.stdout).toMatch(/1 row\(s\) changed under an id the job already holds/);
    expect(existsSync(ws.path('state', 'two.db'))).toBe(false);

    const run = await runCli(['run', job, '--ingest-only'], { cwd: ws.dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`gbatch run: ${refusal}`);
  },
);

test.skipIf(!BUILT)('the same row in two manifests is one row, as run ingests it: plan exits 0', async () => {
  const ws = workspace();
  const job = twoManifestJob(ws, [chatRow('b1', 'Second'), chatRow('shared', 'The same question')]);
  const plan = await runCli(['plan', job, '--json'], { cwd: ws.dir });
  expect(plan.code, plan.stderr).toBe(0);
  expect(stdoutJson(plan)).toMatchObject({ valid: 4, invalid: 0, conflicts: 0, journal: null });
});

test.skipIf(!BUILT)(
  'a row changed under an id the journal holds: plan (read-only) refuses it as run does',
  async () => {
    const ws = workspace();
    const manifest = writeJsonl(ws.path('m.jsonl'), [chatRow('q1', 'Name a planet.'), chatRow('q2', 'Name a star.')]);
    expect((await runCli(['run', manifest, '--state', ws.state, '--ingest-only'])).code).toBe(0);
    writeJsonl(manifest, [chatRow('q1', 'Name a planet.'), chatRow('q2', 'Name a galaxy.')]);
    const plan = await runCli(['plan', manifest, '--state', ws.state]);
    expect(plan.code).toBe(2);
    const refusal = `${manifest}:2 row 'q2': already in the journal (from ${manifest}:2) with different content; give the changed row a new id`;
    expect(plan.stderr.trim()).toBe(refusal);
    const run = await runCli(['run', manifest, '--state', ws.state, '--ingest-only']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(refusal);
  },
);

test.skipIf(!BUILT)(
  "after a capped run, plan shows what is spent and what remains, keeps the job's budget, and exits 3 when the rest cannot fit",
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({ finalResolution: () => '4k' });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(
      ws.path('v.jsonl'),
      Array.from({ length: 4 }, (_, i) =>
        videoRow(`v${i + 1}`, `A harbour at dawn ${i + 1}`, { model: 'video-pro', resolution: '480p', duration: 5 }),
      ),
    );
    const fresh = stdoutJson(await runCli(['plan', manifest, '--state', ws.state, '--budget', '6', '--json']));
    // Each row: $0.2457 expected at 480p, $2.8105 if delivered at 4k: 4 rows can be billed $11.24.
    expect(fresh).toMatchObject({ estimated_usd: 0.98298048, max_usd: 11.24213904, fits_budget: false, journal: null });
    expect(fresh.by_model).toEqual([
      { model: 'video-pro', resolution: '480p', rows: 4, estimated_usd: 0.98298048, max_usd: 11.24213904 },
    ]);
    expect(existsSync(ws.state)).toBe(false);

    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--budget', '6', '--poll-interval', '0.02', '--quiet'],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    expect(run.code, run.stderr).toBe(3);

    const plan = await runCli(['plan', manifest, '--state', ws.state]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(3);
    expect(plan.stdout).toMatch(
      /spent \$5\.621070, reserved \$0\.000000; 2 row\(s\) still to send: estimate \$0\.491490, can bill up to \$5\.621070/,
    );
    expect(plan.stdout).toMatch(
      /Not all at once \(judged on what the gateway can bill\): the job needs up to \$11\.242139 .* against a budget of \$6\.00/,
    );
    // The two settled rows were billed at 4k: the forecast learned it, and neither row left can be sent.
    expect(plan.stdout).toContain('P50 $11.242139, P90 $11.242139, from 2 settled row(s) like these.');
    expect(plan.stdout).toMatch(/stop short of the budget of \$6\.00 by about 2 row\(s\)/);
    expect(plan.stdout).toContain(
      'Row v3 can never be sent under this budget: its bound is $2.810535; a budget of $8.44 sends it.',
    );
    const json = stdoutJson(await runCli(['plan', manifest, '--state', ws.state, '--json']));
    expect(json).toMatchObject({
      budget_usd: 6,
      fits_budget: false,
      journal: {
        spent_usd: 5.62106952,
        reserved_usd: 0,
        remaining_rows: 2,
        remaining_estimated_usd: 0.49149024,
        remaining_max_usd: 5.62106952,
      },
    });
    expect(json).toMatchObject({
      forecast: { p50_usd: 11.24213904, p90_usd: 11.24213904, basis_rows: 2 },
      verdict: 'likely_stops_short',
    });
    expect((await runCli(['plan', manifest, '--state', ws.state, '--budget', '12'])).code).toBe(0);
    expect((await runCli(['plan', manifest, '--state', ws.state, '--no-budget'])).code).toBe(0);
  },
);
