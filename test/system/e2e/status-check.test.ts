// Issue 13: `status --check` for health checks, on real journals: 0 with one "ok" line when nothing needs
// an operator; 1 with one line per reason (here: a runner killed while holding the job), and the same
// facts in `status --json` (liveness, would_exit, durations, needs_operator).
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)('a finished job: --check exits 0 saying so; --json says run would exit 0', async () => {
  const ws = workspace();
  const sim = await startSim();
  const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'Name a comet')]);
  const ran = await runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--quiet'], {
    env: gatewayEnv(sim.baseUrl, KEY),
  });
  expect(ran.code, ran.stderr).toBe(0);
  const check = await runCli(['status', '--state', ws.state, '--check']);
  expect(check.code, check.stderr).toBe(0);
  expect(check.stdout).toBe('ok: nothing needs an operator (`gbatch run` would exit 0 now)\n');
  const json = stdoutJson(await runCli(['status', '--state', ws.state, '--json', '--check']));
  expect(json).toMatchObject({
    would_exit: 0,
    needs_operator: [],
    liveness: { state: 'none' },
    last_error: null,
    cancelled: null,
  });
  expect(json.durations.job_age_s).toBeGreaterThanOrEqual(0);
  expect(json.durations.last_run_s).toBeGreaterThanOrEqual(0);
});

test.skipIf(!BUILT)(
  'a runner killed while holding the job: --check exits 1 naming it; --json says dead, and run would exit 75',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 30 });
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A comet over the sea')]);
    const live = startCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05', '--quiet'],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    await sim.ledger.reached((ledger) => posts(ledger) === 1);
    const alive = await runCli(['status', '--state', ws.state, '--check']);
    expect(alive.code, alive.stdout).toBe(0);
    expect(alive.stdout).toContain('would exit 73 now');
    live.child.kill('SIGKILL');
    await live.result;

    const check = await runCli(['status', '--state', ws.state, '--check']);
    expect(check.code, check.stdout).toBe(1);
    expect(check.stdout).toMatch(
      new RegExp(`^runner pid ${live.child.pid} on .+ is gone but still holds the job \\(heartbeat \\d+ s ago\\)`),
    );
    const json = stdoutJson(await runCli(['status', '--state', ws.state, '--json', '--check']));
    expect(json.would_exit).toBe(75);
    expect(json.liveness).toMatchObject({ state: 'dead', pid: live.child.pid });
    expect(json.needs_operator).toHaveLength(1);
    expect(json.durations.since_last_run_end_s).toBeNull();
  },
);
