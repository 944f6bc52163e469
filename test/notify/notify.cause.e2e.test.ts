// What a webhook hears says why, in words an operator can act on: a refused run carries the refusal's
// own line, a skipped run reads as one sentence, and the commands it suggests name the job as the
// operator started it and work when pasted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../helpers/manifests.js';
import { KEY, posts, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import { startHook } from '../helpers/webhook-server.js';

test.skipIf(!BUILT)(
  'exit 2 for a row changed under its id: the notification carries the refusal\'s line, not only "Refused"',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const hook = await startHook([]);
    const env = gatewayEnv(sim.baseUrl, KEY);
    const rows = Array.from({ length: 5 }, (_, i) => chatRow(`t0${i + 1}`, `Question ${i + 1}`));
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--quiet', '--notify', hook.url];
    expect((await runCli(args, { env })).code).toBe(0);
    writeJsonl(manifest, [...rows.slice(0, 4), chatRow('t05', 'Question five, changed')]);

    const refused = await runCli(args, { env });
    expect(refused.code).toBe(2);
    const bodies = hook.received.map((r) => r.body).filter((b) => b.exit_code === 2);
    expect(bodies).toHaveLength(1);
    const line =
      /row 't05': already in the journal \(from .*rows\.jsonl:5\) with different content; give the changed row a new id/;
    expect(bodies[0].meaning).toMatch(line);
    expect(bodies[0].meaning).toMatch(/^Refused: .*; nothing was sent\.$/);
    expect(bodies[0].text.split('\n')[0]).toMatch(line);
    expect(bodies[0].attention[0]).toMatch(line);
    // The run's own last line says the same.
    expect(refused.stdout.trimEnd().split('\n').at(-1)).toBe(bodies[0].meaning);
    expect(posts(sim.ledger)).toBe(5);
  },
);

test.skipIf(!BUILT)(
  '--if-running skip: the notification reads "Skipped: <the runner> is still running this job", exit 5, without a doubled word',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 30 });
    const hook = await startHook([]);
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('videos.jsonl'), [videoRow('v1', 'A slow sunrise')]);
    const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05', '--quiet'];
    const first = startCli(args, { env });
    await sim.ledger.reached((ledger) => posts(ledger) === 1);

    const skipped = await runCli([...args, '--if-running', 'skip', '--notify', hook.url], { env });
    expect(skipped.code).toBe(5);
    expect(hook.received).toHaveLength(1);
    const body = hook.received[0]!.body;
    const meaning = `Skipped: the gbatch run pid ${first.child.pid} on ${body.host} is still running this job (--if-running skip); nothing was done.`;
    expect(body).toMatchObject({ event: 'run-ended', exit_code: 5, meaning });
    expect(body.text.split('\n')[0]).toBe(`gbatch videos: exit 5: ${meaning}`);
    expect(body.text).not.toMatch(/skipped:\s*skipped/i);

    first.child.kill('SIGTERM');
    expect((await first.result).code).toBe(75);
  },
);

test.skipIf(!BUILT)(
  'the attention line names the job file the run was started with, and its command works when pasted',
  async () => {
    const ws = workspace();
    // The account may not use chat-large: that row is rejected (403).
    const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
    const hook = await startHook([]);
    const env = gatewayEnv(sim.baseUrl, KEY);
    writeJsonl(ws.path('rows.jsonl'), [
      chatRow('ok', 'A fine question'),
      chatRow('no', 'A forbidden question', { model: 'chat-large' }),
    ]);
    mkdirSync(ws.path('jobs'));
    writeFileSync(
      ws.path('jobs', 'nightly.json'),
      JSON.stringify({ name: 'nightly', manifest: '../rows.jsonl', options: { notify: [hook.url] } }),
    );

    const run = await runCli(['run', 'jobs/nightly.json', '--quiet'], { cwd: ws.dir, env });
    expect(run.code, run.stderr).toBe(1);
    const body = hook.received.map((r) => r.body).find((b) => b.event === 'run-ended');
    const retryLine = (body.attention as string[]).find((l) => l.includes('gbatch retry'));
    expect(retryLine).toBe(
      '1 item(s) refused by the gateway: fix the cause, then send them again (`gbatch retry jobs/nightly.json --rejected`)',
    );
    expect(body.text).toContain(`- ${retryLine}`);
    expect(body.report).toBe('gbatch report jobs/nightly.json');

    // Pasted in the directory the run started in, each does what it says.
    const pasted = (command: string) => runCli(command.replace(/^gbatch /, '').split(' '), { cwd: ws.dir, env });
    const retried = await pasted(/`(gbatch retry [^`]+)`/.exec(retryLine!)![1]!);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain('requeued 1 item(s): no');
    const report = await pasted(`${body.report} --format json`);
    expect(report.code, report.stderr).toBe(0);
    expect(stdoutJson(report).items.map((i: { id: string; state: string }) => `${i.id}: ${i.state}`)).toEqual([
      'ok: downloaded',
      'no: pending',
    ]);
  },
);
