// The dashboard's job page opens with the job's standing as `status` tells it (src/core/standing.ts): the same
// sentence, never the last run's exit code in prose, and the command that carries the job on.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { BUILT, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { runInProcess } from '../../helpers/run.js';
import { startSim } from '../../helpers/sim.js';
import { bearer, startUiChild, unescape, type UiChild } from '../../helpers/ui.js';
import { workspace } from '../../helpers/workspace.js';

let ui: UiChild | undefined;
afterAll(async () => ui?.stop());

test.skipIf(!BUILT)(
  "the job page's headline is status's standing sentence, with its commands",
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const state = ws.path('state-dir');
    mkdirSync(state);
    const manifest = writeJsonl(
      ws.path('beta.jsonl'),
      [1, 2, 3].map((i) => chatRow(`beta-${i}`, `Say beta ${i}`)),
    );
    const run = await runInProcess({
      sim,
      ws,
      manifests: [manifest],
      budgetUsd: 0.000001,
      extra: { jobName: 'beta', statePath: join(state, 'beta.db') },
    });
    expect(run.exitCode).toBe(3);

    const status = await runCli(['status', '--state', join(state, 'beta.db'), '--json'], { cwd: ws.dir });
    expect(status.code, status.stderr).toBe(0);
    const standing = stdoutJson<{ standing: { kind: string; sentence: string; resume: string | null } }>(
      status,
    ).standing;
    expect(standing.kind).toBe('budget');

    ui = await startUiChild(['--state-dir', state], { cwd: ws.dir });
    const res = await fetch(new URL('/jobs/beta', ui.url), { headers: { accept: 'text/html', ...bearer() } });
    expect(res.status).toBe(200);
    const html = await res.text();
    const headline = /<strong data-field="standing" data-kind="([^"]*)">([^<]*)<\/strong>/.exec(html);
    expect(headline?.slice(1).map(unescape)).toEqual([standing.kind, standing.sentence]);
    expect(html).not.toMatch(/Last run: exit/);
    if (standing.resume !== null) expect(unescape(html)).toContain(standing.resume);
  },
  30_000,
);
