// `npm start` is `gbatch demo`: the shipped demo job end to end against an embedded simulator, from any
// directory (an installed package's user has no jobs/ folder of their own).
import { existsSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, runCli, stdoutJson } from '../../helpers/cli.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  'gbatch demo from a directory without jobs/: every row ends downloaded (its answer or video kept), the journal and outputs land in that directory',
  async () => {
    const ws = workspace();
    expect(existsSync(ws.path('jobs'))).toBe(false);
    const demo = await runCli(['demo', '--quiet'], { cwd: ws.dir });
    expect(demo.code, demo.stderr).toBe(0);
    expect(existsSync(ws.path('state', 'demo.db'))).toBe(true);
    const results = readFileSync(ws.path('out', 'demo', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { custom_id: string; response: { status_code: number } | null; error: unknown },
      );
    expect(results.map((r) => r.custom_id).sort()).toEqual([
      'haiku-1',
      'loop-480p',
      'plan-1',
      'remix-1080p',
      'summary-1',
      'teaser-720p',
    ]);
    expect(results.filter((r) => r.response?.status_code !== 200 || r.error !== null)).toEqual([]);
    const status = stdoutJson(await runCli(['status', '--state', 'state/demo.db', '--json'], { cwd: ws.dir }));
    expect(status.counts).toMatchObject({ downloaded: 6 });
    for (const id of ['teaser-720p', 'loop-480p', 'remix-1080p'])
      expect(existsSync(ws.path('out', 'demo', `${id}.mp4`))).toBe(true);
  },
  30_000,
);
