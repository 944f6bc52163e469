// Accept-then-drop: the gateway kept the task but the answer never came. The item is `uncertain`, is
// never resubmitted by `run`, and the operator's `resolve` decides: attach the task, resubmit, or abandon.

import { expect, test } from 'vitest';
import type { Simulator } from '../../../src/sim/index.js';
import { BUILT, gatewayEnv, runCli, stdoutJson, workspaceRunArgs } from '../../helpers/cli.js';
import { reportItemOf, reportJson } from '../../helpers/report.js';
import { readJournal, statesById } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim, tasksFor } from '../../helpers/sim.js';
import { sha256File, SIM_VIDEO_SHA256, workspace, type Workspace } from '../../helpers/workspace.js';

const PROMPT = 'A heron lifting off a misty pond';

async function droppedSubmission(): Promise<{
  ws: Workspace;
  sim: Simulator;
  run: () => ReturnType<typeof runCli>;
  env: Record<string, string>;
}> {
  const ws = workspace();
  const sim = await startSim({ faults: { acceptThenDropRate: 1 } });
  const env = gatewayEnv(sim.baseUrl, KEY);
  const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('heron', PROMPT)]);
  const run = () => runCli(workspaceRunArgs(ws, manifest, ['--json', '--quiet']), { env });
  const first = await run();
  expect(first.code, first.stderr).toBe(4);
  expect(stdoutJson(first).counts.uncertain).toBe(1);
  expect(readJournal(ws.state).byId.get('heron')!.state).toBe('uncertain');
  expect(tasksFor(sim.ledger, PROMPT)).toHaveLength(1);
  sim.faults.acceptThenDropRate = 0;
  return { ws, sim, run, env };
}

test.skipIf(!BUILT)(
  'a dropped answer leaves the item uncertain; run never resubmits; resolve --task-id completes it',
  async () => {
    const { ws, sim, run, env } = await droppedSubmission();

    const again = await run();
    expect(again.code, again.stderr).toBe(4);
    expect(tasksFor(sim.ledger, PROMPT)).toHaveLength(1);
    expect(posts(sim.ledger)).toBe(1);

    const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    expect(status.attention.uncertain.map((i: { id: string }) => i.id)).toEqual(['heron']);

    const [task] = tasksFor(sim.ledger, PROMPT);
    const resolved = await runCli(['resolve', '--state', ws.state, 'heron', '--task-id', task!.id], { env });
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain(task!.id);

    const last = await run();
    expect(last.code, last.stderr).toBe(0);
    const item = readJournal(ws.state).byId.get('heron')!;
    expect(item).toMatchObject({ state: 'downloaded', taskId: task!.id, sha256: SIM_VIDEO_SHA256 });
    expect(sha256File(item.outputPath!)).toBe(SIM_VIDEO_SHA256);
    expect(item.actualUsd).toBeCloseTo(sim.ledger.tasks[0]!.chargedUsd, 6);
    expect(tasksFor(sim.ledger, PROMPT)).toHaveLength(1);
    expect(posts(sim.ledger)).toBe(1);
  },
);

test.skipIf(!BUILT)('resolve --task-id refuses a task the gateway does not know, and changes nothing', async () => {
  const { ws, env } = await droppedSubmission();
  const resolved = await runCli(['resolve', '--state', ws.state, 'heron', '--task-id', 'task_doesnotexist000'], {
    env,
  });
  expect(resolved.code).toBe(2);
  expect(resolved.stderr).toMatch(/unknown to the gateway/);
  expect(readJournal(ws.state).byId.get('heron')!.state).toBe('uncertain');
});

test.skipIf(!BUILT)(
  'resolve --resubmit sends it again on purpose: two tasks, and the report says two attempts',
  async () => {
    const { ws, sim, run } = await droppedSubmission();
    const resolved = await runCli(['resolve', '--state', ws.state, 'heron', '--resubmit']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toMatch(/both may be billed/);

    const last = await run();
    expect(last.code, last.stderr).toBe(0);
    const tasks = tasksFor(sim.ledger, PROMPT);
    expect(tasks).toHaveLength(2);
    const report = await reportJson(ws.state);
    const item = reportItemOf(report, 'heron');
    expect(item).toMatchObject({ state: 'downloaded', task_id: tasks[1]!.id, attempts: 2 });
    expect(item.actual_usd).toBeCloseTo(tasks[1]!.chargedUsd, 6);
  },
);

test.skipIf(!BUILT)(
  'resolve --abandon makes it failed, its bound still booked; run then sends nothing and exits 1',
  async () => {
    const { ws, sim, run } = await droppedSubmission();
    const bound = readJournal(ws.state).byId.get('heron')!.reservedUsd;
    expect(bound).toBeGreaterThan(0);
    const resolved = await runCli(['resolve', '--state', ws.state, 'heron', '--abandon']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(readJournal(ws.state).byId.get('heron')).toMatchObject({ state: 'failed', reservedUsd: bound });

    const last = await run();
    expect(last.code, last.stderr).toBe(1);
    expect(stdoutJson(last).counts.failed).toBe(1);
    expect(posts(sim.ledger)).toBe(1);
    expect(tasksFor(sim.ledger, PROMPT)).toHaveLength(1);
  },
);

test.skipIf(!BUILT)(
  '--resubmit-uncertain-text resends a dropped chat call (never a video) and reports it',
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { acceptThenDropRate: 1 } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c', 'Name a constellation.'), videoRow('v', PROMPT)]);
    const args = workspaceRunArgs(ws, manifest, ['--json', '--quiet']);
    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(4);
    expect(readJournal(ws.state).items.map((i) => i.state)).toEqual(['uncertain', 'uncertain']);
    sim.faults.acceptThenDropRate = 0;

    const second = await runCli([...args, '--resubmit-uncertain-text'], { env });
    expect(second.code, second.stderr).toBe(4); // the video still waits for the operator
    const summary = stdoutJson(second);
    expect(summary.auto_resubmitted).toEqual(['c']);
    expect(second.stderr).toMatch(/resubmitting uncertain chat item 'c'/);
    expect(statesById(ws.state)).toEqual({ c: 'downloaded', v: 'uncertain' });
    expect(sim.ledger.submissionsByPrompt()).toEqual({ 'Name a constellation.': 2, [PROMPT]: 1 });
  },
);
