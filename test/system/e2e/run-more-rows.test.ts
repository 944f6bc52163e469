// A run's last lines show its first rows; the command they give for the rest names the job, and works pasted.
import { mkdirSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)("the run's table of its first rows points at the rest with a command that works", async () => {
  const ws = workspace();
  const sim = await startSim();
  const env = gatewayEnv(sim.baseUrl, KEY);
  writeJsonl(
    ws.path('rows.jsonl'),
    Array.from({ length: 42 }, (_, i) => chatRow(`r${i}`, `Question ${i}`)),
  );
  mkdirSync(ws.path('journals'));
  const run = await runCli(['run', 'rows.jsonl', '--state', 'journals/rows.db', '--progress', 'plain'], {
    cwd: ws.dir,
    env,
  });
  expect(run.code, run.stderr).toBe(0);
  const line = run.stdout.split('\n').find((l) => /^\d+ more rows: /.test(l));
  expect(line).toBe('2 more rows: gbatch report --state journals/rows.db --format csv');
  const [command] = suggested(line!);
  const pasted = await runAsPrinted(command!, ws.dir, env);
  expect(pasted.code, pasted.out).toBe(0);
  const ids = new Set(pasted.out.split('\n').map((row) => row.split(',')[0]));
  for (let i = 0; i < 42; i++) expect(ids.has(`r${i}`), `r${i}`).toBe(true);
});
