// An answer without a usable count is UNMETERED: booked at its bound, never at $0, so --budget still
// caps what the gateway bills. The hostile gateway bills its true usage whatever its body says.
import type { ServerResponse } from 'node:http';
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { workspace } from '../../helpers/workspace.js';
import {
  advance,
  chatUsd,
  sendJson,
  startHostileGateway,
  taskView,
  worstChatUsage,
  type HostileGateway,
  type HostileRequest,
} from '../../helpers/hostile-gateway.js';

/** A chat route that bills the worst honest usage but answers with `usage` replaced (undefined: omitted). */
function chatWithUsage(usage: unknown) {
  return (req: HostileRequest, res: ServerResponse, gw: HostileGateway): void => {
    const id = `chatcmpl-${gw.charges.length + 1}`;
    gw.charges.push({
      kind: 'chat',
      ref: id,
      usd: chatUsd(req.json.model, worstChatUsage(req.json)),
      note: 'true usage, not reported',
    });
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created: 0,
      model: req.json.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      ...(usage === undefined ? {} : { usage }),
    });
  };
}

const BUDGET = 0.004; // one uncapped chat-small row can be billed ~$0.00247: one fits, two do not

test.skipIf(!BUILT).each([
  ['omits usage', undefined],
  ['sends a negative usage', { prompt_tokens: -50, completion_tokens: -4096, total_tokens: -4146 }],
  ['sends a non-numeric usage', { prompt_tokens: 'NaN', completion_tokens: null, total_tokens: 'lots' }],
])('a chat server that %s: unmetered rows booked at their bound, the budget holds', async (_name, usage) => {
  const ws = workspace();
  const gw = await startHostileGateway({ routes: { chat: chatWithUsage(usage) } });
  onTestFinished(() => gw.close());
  // No max_tokens: under a budget each is sent with the default cap of 4,096.
  const manifest = writeJsonl(
    ws.path('chat.jsonl'),
    ['c1', 'c2', 'c3'].map((id) => chatRow(id, `Name a planet (${id}).`, { max_tokens: undefined })),
  );
  const run = await runCli(
    ['run', manifest, '--state', ws.state, '--out', ws.out, '--budget', String(BUDGET), '--json', '--quiet'],
    { env: gatewayEnv(gw.baseUrl, gw.key) },
  );
  expect(run.code, run.stderr).toBe(3);
  expect(stdoutJson(run).counts).toMatchObject({ downloaded: 1, deferred: 2 });

  const billed = gw.billedUsd();
  expect(billed).toBeGreaterThan(0);
  expect(billed).toBeLessThanOrEqual(BUDGET);
  const report = await reportJson(ws.state);
  expect(report.totals.actual_usd).toBeGreaterThanOrEqual(billed);
  expect(report.totals.actual_usd).toBeLessThanOrEqual(BUDGET);
  expect(report.totals.unmetered_items).toBe(1);
  const c1 = report.items.find((i) => i.id === 'c1')!;
  expect(c1).toMatchObject({ state: 'downloaded', unmetered: true, total_tokens: null });
  expect(c1.actual_usd).toBeGreaterThan(0);
  expect(report.items.filter((i) => i.id !== 'c1').map((i) => [i.state, i.unmetered])).toEqual([
    ['deferred', false],
    ['deferred', false],
  ]);

  // The cap went out with the request; the journal's row (and its content hash) is the manifest's.
  expect(gw.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.json.max_tokens)).toEqual([4096]);
  expect(readJournal(ws.state).byId.get('c1')!.request).not.toHaveProperty('max_tokens');

  if (usage !== undefined) return; // how the mark is shown, once
  const status = await runCli(['status', '--state', ws.state]);
  expect(status.stdout).toMatch(/Unmetered: 1 item\(s\)/);
  expect(stdoutJson(await runCli(['status', '--state', ws.state, '--json'])).unmetered_items).toBe(1);
  const csv = await runCli(['report', '--state', ws.state, '--format', 'csv']);
  expect(csv.stdout.split('\n')[0]).toContain(',unmetered,');
  expect(csv.stdout).toMatch(/^c1,.*,true,/m);
  const table = await runCli(['report', '--state', ws.state]);
  expect(table.stdout).toMatch(/c1 .*unmetered \(booked at its bound\)/);
  expect(table.stdout).toMatch(/Unmetered: 1 item\(s\)/);
});

test.skipIf(!BUILT)(
  'a responses server without usage: sent with max_output_tokens 4096, booked at its bound',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      routes: {
        responses: (req, res, g) => {
          g.charges.push({
            kind: 'responses',
            ref: 'r',
            usd: chatUsd(req.json.model, worstChatUsage(req.json)),
            note: 'true usage, not reported',
          });
          sendJson(res, 200, {
            id: 'resp_1',
            object: 'response',
            status: 'completed',
            model: req.json.model,
            output: [],
          });
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('r.jsonl'), [
      { id: 'r1', kind: 'responses', model: 'chat-small', input: 'Name a moon.' },
    ]);
    const run = await runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--budget', '1', '--quiet'], {
      env: gatewayEnv(gw.baseUrl, gw.key),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(gw.requests.find((r) => r.path === '/v1/responses')!.json.max_output_tokens).toBe(4096);
    const report = await reportJson(ws.state);
    expect(report.items[0]).toMatchObject({ unmetered: true });
    expect(report.totals.actual_usd).toBeGreaterThanOrEqual(gw.billedUsd());
  },
);

test.skipIf(!BUILT)(
  'a video task that SUCCEEDS without total_tokens: unmetered, booked at its bound, not its estimate',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      routes: {
        videoPoll: (req, res, g) => {
          const task = g.tasks.get(decodeURIComponent(req.path.split('/').pop() ?? ''))!;
          advance(task, g);
          const view = taskView(task);
          delete view.data; // no usage, no resolution: nothing to settle on
          sendJson(res, 200, { code: 'success', data: view });
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('v.jsonl'), [
      videoRow('v1', 'A kite', { model: 'video-pro', resolution: '480p', duration: 5 }),
    ]);
    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--quiet'],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = await reportJson(ws.state);
    // The bound: video-pro 5 s at 4k, the dearest resolution it lists.
    expect(report.items[0]).toMatchObject({ state: 'downloaded', unmetered: true, actual_usd: 2.81053476 });
    expect(report.totals.actual_usd).toBeGreaterThanOrEqual(gw.billedUsd());
    expect(report.totals.unmetered_items).toBe(1);
  },
);
