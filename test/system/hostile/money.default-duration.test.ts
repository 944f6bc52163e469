// A video row that states no duration is bounded at 5 s; the spec names no default, and a gateway whose
// default is longer bills past that bound. So under a budget it is sent with the duration it was bounded
// at. The proof is the hostile gateway's own ledger against --budget and against what the report books.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { workspace } from '../../helpers/workspace.js';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';

test.skipIf(!BUILT)(
  'video rows without a duration, a gateway that defaults to 10 s: each is sent with the 5 s it was bounded at; the bill stays within --budget',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({ defaultSeconds: 10 });
    onTestFinished(() => gw.close());
    // video-mini at 1080p: 5 s is bounded at $0.459; the gateway's 10 s would bill $0.915 each.
    const manifest = writeJsonl(
      ws.path('videos.jsonl'),
      Array.from({ length: 12 }, (_, i) => ({
        id: `v${i + 1}`,
        kind: 'video',
        model: 'video-mini',
        prompt: `A glacier calving, take ${i + 1}`,
        resolution: '1080p',
      })),
    );
    const run = await runCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--poll-interval',
        '0.02',
        '--budget',
        '3',
        '--json',
        '--quiet',
      ],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    const billed = gw.billedUsd();
    expect(billed).toBeGreaterThan(0);
    expect(billed).toBeLessThanOrEqual(3);
    const report = await reportJson(ws.state);
    expect(report.totals.actual_usd).toBeCloseTo(billed, 6);
    expect(run.code, run.stderr).toBe(3);
    expect(stdoutJson(run).stop_reason).toBe('budget');
    const sent = gw.requests.filter((r) => r.method === 'POST' && r.path === '/v1/video/generations');
    expect(sent.map((r) => r.json.duration)).toEqual(Array(sent.length).fill(5));
    // The manifest's row is unchanged in the journal; the submit event records what was added.
    const journal = readJournal(ws.state);
    expect(journal.byId.get('v1')!.request).not.toHaveProperty('duration');
  },
);

test.skipIf(!BUILT)('without a budget the row goes as the manifest wrote it', async () => {
  const ws = workspace();
  const gw = await startHostileGateway({ defaultSeconds: 10 });
  onTestFinished(() => gw.close());
  const manifest = writeJsonl(ws.path('videos.jsonl'), [
    { id: 'v1', kind: 'video', model: 'video-mini', prompt: 'A glacier', resolution: '720p' },
  ]);
  const run = await runCli(
    ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--quiet'],
    { env: gatewayEnv(gw.baseUrl, gw.key) },
  );
  expect(run.code, run.stderr).toBe(0);
  expect(gw.requests.find((r) => r.method === 'POST')!.json).not.toHaveProperty('duration');
});
