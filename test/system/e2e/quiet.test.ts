// Issue 32 item 6: `run --quiet` in a cron log prints the standing's one sentence and what needs a person with its
// commands, no tables; each command works as pasted.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, workspaceRunArgs } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)('run --quiet: the sentence and the commands that need a person, which work as pasted', async () => {
  const ws = workspace();
  const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
  const env = gatewayEnv(sim.baseUrl, KEY);
  const manifest = writeJsonl(ws.path('night.jsonl'), [
    chatRow('ok', 'Name a star.'),
    chatRow('no', 'A model this key may not use', { model: 'chat-large' }),
  ]);
  const run = await runCli(workspaceRunArgs(ws, manifest, ['--quiet']), { env, cwd: ws.dir });
  expect(run.code, run.stderr).toBe(1);
  const retry = `gbatch retry --state ${ws.state} --rejected`;
  // The standing alone: its sentence, then what needs a person with its command; no table, no exit-code prose.
  expect(run.stdout.split('\n')).toEqual([
    'Finished: 1 downloaded, 1 failed, rejected or invalid.',
    '1 item(s) refused by the gateway: fix the cause, then send them again',
    `  ${retry}`,
    '',
  ]);
  expect(suggested(run.stdout)).toEqual([retry]);
  const pasted = await runAsPrinted(retry, ws.dir, env);
  expect(pasted.code, pasted.out).toBe(0);
  const status = JSON.parse((await runCli(['status', '--state', ws.state, '--json'], { env })).stdout) as {
    counts: Record<string, number>;
  };
  expect(status.counts).toMatchObject({ downloaded: 1, pending: 1, rejected: 0 });
  // status says the retried row waits for the next run, and the command that runs it works as pasted.
  const lines = (await runCli(['status', '--state', ws.state], { env, cwd: ws.dir })).stdout.split('\n');
  const carryOn = `gbatch run ${manifest} --state ${ws.state}`;
  expect(lines[1]).toBe(
    `1 item(s) waiting for the next run (sent again by an operator, or added since). Carry on: ${carryOn}`,
  );
  const again = await runAsPrinted(carryOn, ws.dir, env);
  expect(again.code, again.out).toBe(1);
  expect(again.out).toMatch(/^Finished: 1 downloaded, 1 failed, rejected or invalid\.$/m);
});
