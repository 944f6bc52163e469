// The run-ended notification tells the job's standing as `status` does (src/core/standing.ts): the same sentence
// and needs, and commands built from how the job is addressed. Here a job file with a space in its name lists two
// manifests and its run puts the journal elsewhere (--state): every command the webhook suggests is run through
// `sh -c` as pasted, and each must exit 0 and do what it says.
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../helpers/cli.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { KEY, startSim } from '../helpers/sim.js';
import { runAsPrinted, suggested } from '../helpers/suggested.js';
import { workspace } from '../helpers/workspace.js';
import { startHook } from '../helpers/webhook-server.js';

const JOB = 'jobs/night shift.json';

test.skipIf(!BUILT)(
  "a job file of two manifests on a moved journal: the webhook tells status's standing; its commands work pasted",
  async () => {
    const ws = workspace();
    // The account may not use chat-large: that row is rejected (403), and no retry policy sends it again.
    const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
    const hook = await startHook([]);
    const env = gatewayEnv(sim.baseUrl, KEY);
    mkdirSync(ws.path('manifests'));
    writeJsonl(ws.path('manifests', 'labels.jsonl'), [
      chatRow('ok', 'A fine question'),
      chatRow('no', 'A forbidden question', { model: 'chat-large' }),
    ]);
    writeJsonl(ws.path('manifests', 'videos.jsonl'), [chatRow('ok2', 'Another fine question')]);
    mkdirSync(ws.path('jobs'));
    writeFileSync(
      ws.path(JOB),
      JSON.stringify({
        name: 'night',
        manifest: ['../manifests/labels.jsonl', '../manifests/videos.jsonl'],
        options: { notify: [hook.url], 'retry-failed': 0 },
      }),
    );
    mkdirSync(ws.path('journals'));

    const run = await runCli(['run', JOB, '--state', 'journals/night.db', '--quiet'], { cwd: ws.dir, env });
    expect(run.code, run.stderr).toBe(1);
    const body = hook.received.map((r) => r.body).find((b) => b.event === 'run-ended');
    const status = await runCli(['status', JOB, '--state', 'journals/night.db', '--json'], { cwd: ws.dir, env });
    expect(status.code, status.stderr).toBe(0);
    const standing = stdoutJson(status).standing as { sentence: string; needs: unknown[] };
    expect(body.standing).toEqual(standing);
    expect((body.text as string).split('\n')[0]).toBe(`gbatch night: exit 1: ${standing.sentence}`);

    const commands = [...new Set(suggested([body.text, body.report, ...(body.attention as string[])].join('\n')))];
    expect(commands).toEqual(
      expect.arrayContaining([
        'gbatch report --state journals/night.db',
        'gbatch retry --state journals/night.db --rejected',
      ]),
    );
    const states = async (): Promise<Record<string, string>> => {
      const report = await runCli(['report', JOB, '--state', 'journals/night.db', '--format', 'json'], {
        cwd: ws.dir,
        env,
      });
      const items = stdoutJson(report).items as Array<{ id: string; state: string }>;
      return Object.fromEntries(items.map((i) => [i.id, i.state]));
    };
    const before = await states();
    expect(before).toEqual({ ok: 'downloaded', no: 'rejected', ok2: 'downloaded' });
    // Reading commands first, then the one that moves a row.
    for (const command of commands.sort((a) => (a.startsWith('gbatch retry') ? 1 : -1))) {
      const pasted = await runAsPrinted(command, ws.dir, env);
      expect(pasted.code, `${command}:\n${pasted.out}`).toBe(0);
      const after = await states();
      if (command.startsWith('gbatch retry')) expect(after).toEqual({ ...before, no: 'pending' });
      else expect(after, command).toEqual(before);
    }
  },
);
