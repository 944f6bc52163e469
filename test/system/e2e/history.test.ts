// `gbatch history` shows what settled rows were billed against their estimate and bound, per model, from the
// history `run` keeps at settlement; without a journal named it is a usage error.
import { expect, onTestFinished, test } from 'vitest';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)('history shows per model what the run was billed, against the estimate and the bound', async () => {
  const ws = workspace();
  const gw = await startHostileGateway({ finalResolution: () => '720p' });
  onTestFinished(() => gw.close());
  const manifest = writeJsonl(ws.path('h.jsonl'), [
    videoRow('v1', 'A kite'),
    videoRow('v2', 'A boat'),
    chatRow('c1', 'Hello'),
  ]);
  const missing = await runCli(['history', '--state', ws.state]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`${ws.state}: no journal there`);
  expect((await runCli(['history', 'import', ws.path('none.db'), '--state', ws.state])).code).toBe(2);
  expect((await runCli(['journal', 'migrate', '--journal', ws.state])).code).toBe(0);
  const empty = await runCli(['history', '--state', ws.state]);
  expect(empty.code, empty.stderr).toBe(0);
  expect(empty.stdout).toMatch(/: no settled rows in the cost history yet\n$/);

  const run = stdoutJson(
    await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.01', '--quiet', '--json'],
      {
        env: gatewayEnv(gw.baseUrl, gw.key),
      },
    ),
  );
  expect(run.exit_code).toBe(0);
  const json = stdoutJson(await runCli(['history', '--state', ws.state, '--json']));
  expect(json.rows).toBe(3);
  const [chat, video] = json.models;
  expect(chat).toMatchObject({ model: 'chat-small', kind: 'chat', resolution: null, rows: 1 });
  expect(video).toMatchObject({ model: 'video-mini', kind: 'video', resolution: '480p', rows: 2 });
  // Delivered at 720p: billed 2.25x the 480p estimate (the token count's ratio), below the 1080p bound.
  expect(video.billed_usd / video.estimated_usd).toBeCloseTo(2.25, 2);
  expect(video.billed_usd).toBeLessThan(video.bound_usd);
  expect(chat.billed_usd + video.billed_usd).toBeCloseTo(run.spent_usd, 8);
  const table = await runCli(['history', '--state', ws.state]);
  expect(table.stdout).toMatch(/video-mini\s+video\s+480p\s+2\s+\$\d\.\d{6}\s+\$\d\.\d{6}\s+2\.25\s+\$\d\.\d{6}/);

  const unnamed = await runCli(['history']);
  expect(unnamed.code).toBe(2);
  expect(unnamed.stderr).toContain('name the journal: --state F');
});
