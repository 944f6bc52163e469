// A dead gateway is not slow work: a few refused connections in a row stop the run at once with the
// cause (errno and address) in one line, nothing more is sent, and `status` shows why the run stopped.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { closedPort } from '../../helpers/test-server.js';
import { HOSTILE_KEY, startHostileGateway } from '../../helpers/hostile-gateway.js';

/** Start-up and exit of a child process on a loaded 2-core machine; the run's own stop takes well under 1 s. */
const BOUND_MS = 5_000;

test.skipIf(!BUILT)(
  'a closed port: exit 75 within seconds, ECONNREFUSED named once, rows pending; status shows the cause',
  async () => {
    const ws = workspace();
    const port = await closedPort();
    const rows = [
      ...Array.from({ length: 10 }, (_, i) => chatRow(`c${i}`, `row ${i}`)),
      videoRow('v1', 'A lighthouse'),
      videoRow('v2', 'A harbour'),
    ];
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const startedAt = Date.now();
    const run = await runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--json', '--quiet'], {
      env: gatewayEnv(`http://127.0.0.1:${port}/v1`, HOSTILE_KEY),
    });
    const elapsed = Date.now() - startedAt;
    expect(run.code, run.stderr).toBe(75);
    expect(elapsed).toBeLessThan(BOUND_MS);
    expect(run.stderr.match(/ECONNREFUSED/g)).toHaveLength(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `[gbatch] gateway unreachable at http://127.0.0.1:${port}/v1: connect ECONNREFUSED 127.0.0.1:${port} (3 refused connections in a row); ` +
        'stopping: nothing more is sent (pending rows stay pending), polls stop, tasks in flight are picked up by the next run',
    );
    const summary = stdoutJson(run);
    expect(summary.stop_reason).toBe('unreachable');
    expect(summary.counts.pending).toBe(rows.length);
    expect(readJournal(ws.state).items.every((i) => i.state === 'pending')).toBe(true);

    const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    expect(status.last_run).toMatchObject({
      exit_code: 75,
      stop_reason: 'unreachable',
      running: false,
      needs_attention: true,
    });
    expect(status.last_run.message).toContain(`connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(status.last_run.ended_at).not.toBeNull();
    const text = await runCli(['status', '--state', ws.state]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/last run stopped \(unreachable, exit 75\), pid \d+ on .+, started /);
    expect(text.stdout).toContain(
      `gateway unreachable at http://127.0.0.1:${port}/v1: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  },
);

test.skipIf(!BUILT)(
  'the gateway dies while video tasks are polled: polls stop within seconds, tasks stay in flight for the next run',
  async () => {
    const ws = workspace();
    // Tasks that never finish while the gateway lives: the run is polling when it goes away.
    const gw = await startHostileGateway({ pollsUntilDone: 1_000_000 });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'A lighthouse', { model: 'video-mini' }),
      videoRow('v2', 'A harbour', { model: 'video-mini' }),
    ]);
    const child = startCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05', '--json', '--quiet'],
      {
        env: gatewayEnv(gw.baseUrl, gw.key),
      },
    );
    await gw.received(6); // two submissions, then polls
    expect(gw.count('GET', '/v1/video/generations/')).toBeGreaterThan(0);
    const closedAt = Date.now();
    await gw.close();
    const run = await child.result;
    const afterClose = Date.now() - closedAt;
    expect(run.code, run.stderr).toBe(75);
    expect(afterClose).toBeLessThan(BOUND_MS);
    expect(run.stderr.match(/gateway unreachable at /g)).toHaveLength(1);
    expect(run.stderr).toMatch(/connect ECONNREFUSED 127\.0\.0\.1:\d+ \(3 refused connections in a row\)/);
    expect(run.stderr).not.toMatch(/poll of task/);
    expect(stdoutJson(run).stop_reason).toBe('unreachable');
    const states = readJournal(ws.state).items.map((i) => i.state);
    expect(
      states.every((s) => s === 'submitted' || s === 'running'),
      states.join(),
    ).toBe(true);
    expect(gw.count('POST', '/v1/video/generations')).toBe(2);

    const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    expect(status.last_run).toMatchObject({ exit_code: 75, stop_reason: 'unreachable', needs_attention: true });
  },
);
