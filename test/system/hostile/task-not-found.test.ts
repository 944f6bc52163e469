// A video task the gateway answers 404 for: a submission answer whose `id` and `task_id` differ (only one
// of them pollable), or a task the gateway expired. Polls try every id the answer named; a task unknown by
// all of them, poll after poll, becomes `uncertain` with the reason (it may have been billed), instead of
// holding its row `submitted` and its reservation forever while every run exits 75.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { DEFAULTS, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';

test.skipIf(!BUILT)(
  'an answer whose `id` differs from `task_id`, polling by `id` 404s: both kept, polled by `task_id`, downloaded, exit 0',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      routes: {
        // The gateway's own id first, the upstream task's (the one its poll and content routes know) beside it.
        videoSubmit: (req, res, g) => {
          const before = new Set(g.tasks.keys());
          // the task, not its answer
          DEFAULTS.videoSubmit(req, { writeHead: () => undefined, end: () => undefined } as unknown as typeof res, g);
          const task_id = [...g.tasks.keys()].find((id) => !before.has(id))!;
          sendJson(res, 200, { id: `gw_${task_id}`, task_id, status: 'queued' });
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A comet')]);
    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--json', '--quiet'],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(stdoutJson(run).counts).toMatchObject({ downloaded: 1 });
    const [task] = [...gw.tasks.keys()];
    const item = readJournal(ws.state).byId.get('v1')!;
    expect(item).toMatchObject({
      state: 'downloaded',
      taskId: task,
      bytes: 4096,
      response: { task_ids: [`gw_${task}`, task] },
    });
    expect(gw.count('POST', '/v1/video/generations')).toBe(1);
    expect(gw.charges.map((c) => c.ref)).toEqual([task]);
  },
);

test.skipIf(!BUILT)(
  'a task the gateway answers 404 forever: uncertain with the reason after a bounded number of polls, exit 4; --check flags it; resolve settles it',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      routes: {
        videoPoll: (req, res) =>
          sendJson(res, 404, { code: 'task_not_found', message: `task ${req.path.split('/').pop()} not found` }),
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A comet')]);
    const args = [
      'run',
      manifest,
      '--state',
      ws.state,
      '--out',
      ws.out,
      '--poll-interval',
      '0.02',
      '--json',
      '--quiet',
    ];
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const run = await runCli(args, { env });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toMatch(
      /task task_h\d+ \(item 'v1'\) is unknown to the gateway for this key \(404 x3\): the row is uncertain/,
    );
    const polls = gw.count('GET', '/v1/video/generations/');
    expect(polls).toBe(3);
    const item = readJournal(ws.state).byId.get('v1')!;
    expect(item.state).toBe('uncertain');
    expect(item.reservedUsd).toBeGreaterThan(0); // it may have been billed: the reservation stays
    expect(item.lastError).toMatchObject({
      status: 404,
      message: expect.stringMatching(/unknown to the gateway \(404 x3\): it may have been billed/),
    });

    const check = await runCli(['status', '--state', ws.state, '--check']);
    expect(check.code, check.stdout).toBe(1);
    expect(check.stdout).toMatch(/1 item\(s\) uncertain/);

    // A later run does not poll it again, nor send it again: the operator decides.
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(4);
    expect(gw.count('GET', '/v1/video/generations/')).toBe(polls);
    expect(gw.count('POST', '/v1/video/generations')).toBe(1);

    const resolved = await runCli(['resolve', '--state', ws.state, 'v1', '--abandon']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(readJournal(ws.state).byId.get('v1')!.state).toBe('failed');
    expect((await runCli(['status', '--state', ws.state, '--check'])).stdout).not.toMatch(/uncertain/);
  },
);
