// Issue 10 item 5: a gateway (or the upstream behind it) that echoes the API key in every text it sends
// back: a task's fail_reason, a chat answer's body (its strings and its keys), an error envelope, a
// request-id header, in the forms a body can carry it (as is, JSON-escaped, URL-encoded, Bearer). After
// a run, no file under the workspace and no output of run, status, report holds the key in any form.

import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { expect, onTestFinished, test } from 'vitest';
import {
  DEFAULTS,
  errorEnvelope,
  sendJson,
  startHostileGateway,
  worstChatUsage,
  type HostileGateway,
  type HostileRequest,
} from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, type CliResult } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { filesUnder, workspace } from '../../helpers/workspace.js';

// Characters that URL- and JSON-encoding change, so each form differs from the key as is.
const KEY = 'sk-hostile/KEY+0123456789=';
const unicodeEscaped = (text: string): string =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const FORMS = [
  KEY,
  encodeURIComponent(KEY),
  encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  KEY.replace('/', '\\/'),
  unicodeEscaped(KEY),
  '0123456789', // the key's core: a partial leak counts
];

/** Every form at once, as an upstream that echoes the request would write it. */
const ECHO = [
  `Authorization: Bearer ${KEY}`,
  `key ${KEY}`,
  `url https://upstream.example/v1?api_key=${encodeURIComponent(KEY)}`,
  `json {"authorization":"Bearer ${KEY.replace('/', '\\/')}"}`,
  `escaped ${unicodeEscaped(KEY)}`,
].join(' | ');

function chatEcho(req: HostileRequest, res: ServerResponse, gw: HostileGateway): void {
  const prompt = JSON.stringify(req.json?.messages ?? '');
  if (prompt.includes('refuse me')) {
    sendJson(
      res,
      400,
      { ...errorEnvelope(`bad request: ${ECHO}`, `type ${KEY}`, KEY), [KEY]: ECHO },
      { 'x-request-id': `req ${ECHO}` },
    );
    return;
  }
  const usage = worstChatUsage(req.json);
  gw.charges.push({ kind: 'chat', ref: 'echo', usd: 0, note: 'echo' });
  sendJson(
    res,
    200,
    {
      id: 'chatcmpl-echo',
      object: 'chat.completion',
      created: 0,
      model: req.json.model,
      choices: [{ index: 0, message: { role: 'assistant', content: `You sent ${ECHO}` }, finish_reason: 'stop' }],
      usage,
      echo: { [KEY]: [ECHO, { nested: { deeper: ECHO } }], headers: { authorization: `Bearer ${KEY}` } },
    },
    { 'x-request-id': `req-${KEY}` },
  );
}

test.skipIf(!BUILT)(
  'a gateway that echoes the key in fail_reason, answers, envelopes and headers: no file and no output holds it',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      key: KEY,
      routes: {
        chat: chatEcho,
        videoPoll: (req, res, g) => {
          const id = decodeURIComponent(req.path.split('/').pop() ?? '');
          const task = g.tasks.get(id);
          if (!task) return DEFAULTS.videoPoll(req, res, g);
          task.polls = 99; // end on the first poll
          task.status = 'FAILURE';
          task.failReason = `upstream refused ${ECHO}`;
          sendJson(
            res,
            200,
            {
              code: 'success',
              data: {
                task_id: id,
                status: 'FAILURE',
                progress: '100%',
                fail_reason: task.failReason,
                data: { error: { message: ECHO }, [KEY]: ECHO },
              },
            },
            { 'x-request-id': `poll ${KEY}` },
          );
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow('c-echo', 'Say hello.'),
      chatRow('c-refused', 'Please refuse me.'),
      videoRow('v-echo', 'A lighthouse at dusk'),
    ]);
    const env = gatewayEnv(gw.baseUrl, KEY);
    const outputs: CliResult[] = [];
    const cli = async (args: string[]): Promise<CliResult> => {
      const result = await runCli(args, { env });
      outputs.push(result);
      return result;
    };

    const run = await cli([
      'run',
      manifest,
      '--state',
      ws.state,
      '--out',
      ws.out,
      '--poll-interval',
      '0.02',
      '--retry-failed',
      '0',
    ]);
    expect(run.code, run.stderr).toBe(1);
    // The gateway really did send the key back, in every place the test set it.
    expect(gw.count('POST', '/v1/chat/completions')).toBe(2);
    expect(gw.count('GET', '/v1/video/generations/')).toBeGreaterThan(0);
    const items = readJournal(ws.state).byId;
    expect(items.get('c-echo')!.state).toBe('downloaded');
    expect(items.get('c-refused')!.state).toBe('rejected');
    expect(items.get('v-echo')!.state).toBe('failed');
    // What happened is still said, without the key.
    expect(items.get('v-echo')!.lastError!.message).toMatch(
      /upstream refused Authorization: Bearer \[redacted\] \| key \[redacted\]/,
    );
    expect(items.get('c-refused')!.lastError!.message).toMatch(/bad request: Authorization: Bearer \[redacted\]/);

    expect(
      (await cli(['run', manifest, '--state', ws.state, '--out', ws.out, '--json', '--retry-failed', '0'])).code,
    ).toBe(1);
    expect((await cli(['status', '--state', ws.state])).stdout).toMatch(/v-echo.*upstream refused/);
    expect((await cli(['status', '--state', ws.state, '--json'])).code).toBe(0);
    for (const format of ['table', 'json', 'csv']) {
      expect((await cli(['report', '--state', ws.state, '--format', format])).code).toBe(0);
      expect(
        (await cli(['report', '--state', ws.state, '--format', format, '--output', ws.path('reports', `r.${format}`)]))
          .code,
      ).toBe(0);
    }
    const results = readFileSync(ws.path('out', 'results.jsonl'), 'utf8');
    expect(results).toMatch(/You sent Authorization: Bearer \[redacted\]/);

    const files = filesUnder(ws.dir);
    expect(files.some((f) => f.endsWith('.db'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const form of FORMS) expect(bytes.includes(form), `${file} holds the key as ${form}`).toBe(false);
    }
    for (const [i, result] of outputs.entries()) {
      for (const form of FORMS) {
        expect(result.stdout, `stdout of command ${i}`).not.toContain(form);
        expect(result.stderr, `stderr of command ${i}`).not.toContain(form);
      }
    }
  },
);
