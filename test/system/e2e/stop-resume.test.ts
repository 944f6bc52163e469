// Runs that stop early and resume: --no-wait, --deadline, and SIGTERM mid-campaign. Each exits 75,
// leaves a consistent journal, and the next run finishes without sending anything twice.

import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson, workspaceRunArgs } from '../../helpers/cli.js';
import { readJournal, submittingIds } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, posts, startSim } from '../../helpers/sim.js';
import { sha256File, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  '--no-wait submits and exits 75; the next run polls and downloads without resubmitting',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'Leaves falling in a park'),
      videoRow('v2', 'A tram at night'),
      chatRow('c1', 'Name a tree.'),
    ]);
    const args = workspaceRunArgs(ws, manifest, ['--json', '--quiet']);

    const first = await runCli([...args, '--no-wait'], { env });
    expect(first.code, first.stderr).toBe(75);
    expect(stdoutJson(first).stop_reason).toBe('no-wait');
    const afterFirst = readJournal(ws.state).byId;
    expect(afterFirst.get('v1')!.state).toBe('submitted');
    expect(afterFirst.get('v1')!.taskId).toBe(sim.ledger.tasks[0]!.id);
    expect(afterFirst.get('c1')!.state).toBe('downloaded');
    expect(sim.ledger.requests.filter((r) => r.method === 'GET')).toHaveLength(0);
    expect(posts(sim.ledger)).toBe(3);

    const second = await runCli(args, { env });
    expect(second.code, second.stderr).toBe(0);
    expect(posts(sim.ledger)).toBe(3);
    expect(duplicates(sim.ledger)).toEqual({});
    for (const id of ['v1', 'v2']) expect(sha256File(ws.path('out', `${id}.mp4`))).toBe(SIM_VIDEO_SHA256);
  },
);

test.skipIf(!BUILT)(
  '--deadline 1s --drain 0 with longer tasks exits 75 leaving them running; the next run finishes them',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 2 });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'Clouds over mountains'),
      videoRow('v2', 'Boats in a marina'),
    ]);
    const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.1', '--json', '--quiet'];

    const first = await runCli([...args, '--deadline', '1s', '--drain', '0'], { env });
    expect(first.code, first.stderr).toBe(75);
    expect(stdoutJson(first).stop_reason).toBe('deadline');
    expect(first.stderr).toMatch(/deadline reached/);
    const states = readJournal(ws.state).items.map((i) => i.state);
    expect(
      states.every((s) => s === 'submitted' || s === 'running'),
      states.join(),
    ).toBe(true);

    const second = await runCli(args, { env });
    expect(second.code, second.stderr).toBe(0);
    expect(posts(sim.ledger)).toBe(2);
    expect(sim.ledger.tasks).toHaveLength(2);
    expect(readJournal(ws.state).items.every((i) => i.state === 'downloaded' && i.sha256 === SIM_VIDEO_SHA256)).toBe(
      true,
    );
  },
);

test.skipIf(!BUILT)(
  'SIGTERM mid-campaign: exit 75, nothing sent after it, no item left submitting; the next run finishes',
  async () => {
    const ws = workspace();
    // Slow answers, one at a time: when the signal comes, one request is on the wire and the next would
    // leave only when it returns.
    const LATENCY_MS = 300;
    const sim = await startSim({ faults: { latencyMs: LATENCY_MS } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const rows = [
      ...Array.from({ length: 5 }, (_, i) => videoRow(`v${i}`, `A windmill, take ${i}`)),
      ...Array.from({ length: 5 }, (_, i) => chatRow(`c${i}`, `Write the number ${i} in words.`)),
    ];
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const args = workspaceRunArgs(ws, manifest, ['--concurrency', '1', '--quiet']);

    const child = startCli(args, { env });
    // The POSTs the simulator had when the runner said it stopped submitting: at most the one request
    // then on the wire (one at a time) may arrive after that line, nothing else.
    const postsWhenStopped = new Promise<number>((resolve) => {
      let said = '';
      child.child.stderr!.on('data', (chunk: Buffer | string) => {
        said += String(chunk);
        if (said.includes('stopping: no new submissions')) resolve(posts(sim.ledger));
      });
    });
    await sim.ledger.reached((ledger) => posts(ledger) >= 2);
    child.child.kill('SIGTERM');
    const first = await child.result;
    expect(first.code, first.stderr).toBe(75);
    expect(first.stderr).toMatch(/stopping: no new submissions/);
    expect(posts(sim.ledger)).toBeLessThanOrEqual((await postsWhenStopped) + 1);
    expect(submittingIds(ws.state)).toEqual([]);
    expect(posts(sim.ledger)).toBeLessThan(rows.length);

    sim.faults.latencyMs = 0;
    const second = await runCli([...args, '--json'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(stdoutJson(second).counts.downloaded).toBe(rows.length);
    expect(posts(sim.ledger)).toBe(rows.length);
    expect(duplicates(sim.ledger)).toEqual({});
    expect(Object.keys(sim.ledger.submissionsByPrompt())).toHaveLength(rows.length);
  },
);

test.skipIf(!BUILT)('a second run on a journal in use refuses with a clear message and sends nothing', async () => {
  const ws = workspace();
  const sim = await startSim({ taskSeconds: 30 });
  const env = gatewayEnv(sim.baseUrl, KEY);
  const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A very slow sunrise')]);
  const args = workspaceRunArgs(ws, manifest, ['--quiet']);

  const first = startCli(args, { env });
  await sim.ledger.reached((ledger) => posts(ledger) === 1);
  const second = await runCli(args, { env });
  expect(second.code).toBe(73);
  expect(second.stderr).toMatch(
    new RegExp(`another gbatch run \\(pid ${first.child.pid} on .+\\) is using this journal`),
  );
  const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
  expect(status.runner.pid).toBe(first.child.pid);

  first.child.kill('SIGTERM');
  expect((await first.result).code).toBe(75);
  expect(posts(sim.ledger)).toBe(1);
  expect(readJournal(ws.state).byId.get('v1')!.state).toMatch(/^(submitted|running)$/);
});
