// Item ids are user data: '../escape', 'a/b', 'sp ace' and friends become safe file names, and nothing
// is written outside --out. Paths in the report are as the CLI would open them (relative --out: relative).

import { mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { reportItemOf, reportJson } from '../../helpers/report.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { filesUnder, sha256File, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

const IDS = ['../escape', '../../escape-further', 'a/b', 'sp ace', '..', '/abs/olute', 'CON', '.hidden'];

test.skipIf(!BUILT)('hostile ids produce files inside --out only, each named once and byte-identical', async () => {
  const ws = workspace();
  const sim = await startSim();
  const cwd = ws.path('work');
  mkdirSync(cwd);
  writeJsonl(
    join(cwd, 'rows.jsonl'),
    IDS.map((id, i) => videoRow(id, `An odd name, clip ${i}`)),
  );

  const run = await runCli(
    ['run', 'rows.jsonl', '--state', 'state/job.db', '--out', 'out', '--poll-interval', '0.05', '--quiet'],
    { cwd, env: gatewayEnv(sim.baseUrl, KEY) },
  );
  expect(run.code, run.stderr).toBe(0);

  const outDir = join(cwd, 'out');
  const written = filesUnder(ws.dir)
    .map((f) => relative(ws.dir, f))
    .sort();
  const outside = written.filter(
    (f) =>
      !f.startsWith(join('work', 'out') + '/') &&
      !f.startsWith(join('work', 'state') + '/') &&
      f !== join('work', 'rows.jsonl'),
  );
  expect(outside).toEqual([]);
  // Beside the videos, results.jsonl (one line per video, with its file as the CLI would open it).
  const videos = filesUnder(outDir).filter((f) => f !== join(outDir, 'results.jsonl'));
  expect(videos).toHaveLength(IDS.length);
  for (const file of videos) {
    expect(file.startsWith(outDir + '/')).toBe(true);
    expect(relative(outDir, file)).not.toContain('/');
    expect(file.endsWith('.mp4')).toBe(true);
  }

  const report = await reportJson('state/job.db', cwd);
  const outputs = new Set<string>();
  for (const id of IDS) {
    const item = reportItemOf(report, id);
    expect(item.state).toBe('downloaded');
    expect(isAbsolute(item.output!), `${id}: ${item.output}`).toBe(false);
    const onDisk = resolve(cwd, item.output!);
    expect(relative(outDir, onDisk).startsWith('..')).toBe(false);
    expect(sha256File(onDisk)).toBe(SIM_VIDEO_SHA256);
    outputs.add(onDisk);
  }
  expect(outputs.size).toBe(IDS.length);
  const lines = readFileSync(join(outDir, 'results.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines.map((l) => l.custom_id)).toEqual(IDS);
  for (const line of lines) expect(line.response.body.file).toBe(reportItemOf(report, line.custom_id).output);
});
