// Issue 32 item 2: `gbatch cancel` of a job with tasks in flight and no live runner names the command that settles
// them: `gbatch run` with the job's manifest (and --state), never `gbatch run --state F` (a journal where run takes
// a job file or manifest), and it works as pasted.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, workspaceRunArgs } from '../../helpers/cli.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)('cancel with tasks in flight and no runner: its run command works as pasted', async () => {
  const ws = workspace();
  const sim = await startSim({ taskSeconds: 0.2 });
  const env = gatewayEnv(sim.baseUrl, KEY);
  const manifest = writeJsonl(ws.path('clips.jsonl'), [videoRow('v1', 'A heron at dawn')]);
  const submitted = await runCli(workspaceRunArgs(ws, manifest, ['--no-wait', '--quiet']), { env, cwd: ws.dir });
  expect(submitted.code, submitted.stderr).toBe(75);
  const cancel = await runCli(['cancel', '--state', ws.state, '--wait', '0'], { env, cwd: ws.dir });
  expect(cancel.code, cancel.stderr).toBe(0);
  const run = `gbatch run ${manifest} --state ${ws.state}`;
  expect(cancel.stdout).toContain(`no runner is live: \`${run}\` polls and downloads them`);
  expect(suggested(cancel.stdout)).toContain(run);
  const pasted = await runAsPrinted(run, ws.dir, env);
  expect(pasted.code, pasted.out).toBe(0);
  const status = JSON.parse((await runCli(['status', '--state', ws.state, '--json'], { env })).stdout) as {
    counts: Record<string, number>;
  };
  expect(status.counts).toMatchObject({ downloaded: 1, submitted: 0 });
});
