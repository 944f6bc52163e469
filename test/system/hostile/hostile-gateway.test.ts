// The hostile gateway itself, as a control: behaving honestly, gbatch's report equals its ledger.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';

test.skipIf(!BUILT)("an honest run against the hostile gateway: the report's actual equals the ledger", async () => {
  const ws = workspace();
  const gw = await startHostileGateway();
  onTestFinished(() => gw.close());
  const manifest = writeJsonl(ws.path('rows.jsonl'), [
    chatRow('c1', 'Name a planet.'),
    videoRow('v1', 'A comet', { model: 'video-pro', resolution: '720p' }),
  ]);
  const common = ['--state', ws.state, '--out', ws.out, '--poll-interval', '0.02'];
  const run = await runCli(['run', manifest, ...common], { env: gatewayEnv(gw.baseUrl, gw.key) });
  expect(run.code, run.stderr).toBe(0);
  const report = stdoutJson(await runCli(['report', '--state', ws.state, '--format', 'json']));
  expect(report.totals.actual_usd).toBeCloseTo(gw.billedUsd(), 6);
  expect(gw.count('POST', '/v1/video/generations')).toBe(1);
  expect(gw.count('POST', '/v1/chat/completions')).toBe(1);
});
