// A 2xx answer whose body is an error envelope is the server's refusal: `rejected`, exit 1, never
// `downloaded`, and nothing booked (spec 7.4.3: a rejected submission keeps no charge).
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { workspace } from '../../helpers/workspace.js';
import { sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';

test.skipIf(!BUILT)(
  '200 with {"error": ...} (chat, no type, as third-party servers send) and 200 with a task error envelope (video): rejected, exit 1',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      routes: {
        chat: (_req, res) =>
          sendJson(res, 200, { error: { message: 'The model chat-small is overloaded', code: 503 } }),
        videoSubmit: (_req, res) =>
          sendJson(res, 200, { code: 'upstream_rejected', message: 'content policy: prompt refused' }),
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow('c1', 'Name a planet.'),
      videoRow('v1', 'A comet', { model: 'video-pro' }),
    ]);
    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--json', '--quiet'],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(stdoutJson(run).counts).toMatchObject({ rejected: 2, downloaded: 0 });
    // Each was sent once: a refusal is a definite answer, not retried, not uncertain.
    expect(gw.count('POST', '/v1/chat/completions')).toBe(1);
    expect(gw.count('POST', '/v1/video/generations')).toBe(1);
    const report = await reportJson(ws.state);
    const byId = Object.fromEntries(report.items.map((i) => [i.id, i]));
    expect(byId.c1).toMatchObject({
      state: 'rejected',
      actual_usd: null,
      error: { status: 200, code: '503', message: '200 The model chat-small is overloaded' },
    });
    expect(byId.v1).toMatchObject({
      state: 'rejected',
      task_id: null,
      error: { status: 200, code: 'upstream_rejected', message: '200 content policy: prompt refused' },
    });
    expect(report.totals).toMatchObject({ actual_usd: 0, reserved_usd: 0 });
  },
);
