// What leaves is what the operator meant: a gateway that refuses any body field the spec does not define
// (as a strict one may) receives only request fields; a manifest column that is no request field is
// refused before anything is sent, unless it is declared metadata, which the journal and results.jsonl
// keep and no request carries. `plan --show-requests` prints the bodies the gateway then receives.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteFile } from '../../helpers/journal-raw.js';
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { writeCsv, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import {
  DEFAULTS,
  errorEnvelope,
  sendJson,
  startHostileGateway,
  type HostileGateway,
  type Route,
} from '../../helpers/hostile-gateway.js';

// The gateway's own reading of spec 2.4 and 2.9 (shared with nothing in src/).
const CHAT_FIELDS = new Set([
  'model',
  'messages',
  'temperature',
  'top_p',
  'n',
  'stream',
  'stream_options',
  'stop',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'reasoning_effort',
  'tools',
  'tool_choice',
  'response_format',
  'user',
]);
const VIDEO_FIELDS = new Set([
  'model',
  'prompt',
  'resolution',
  'duration',
  'seconds',
  'images',
  'image',
  'input_reference',
  'video_url',
  'videos',
  'content',
  'generate_audio',
  'metadata',
  'width',
  'height',
  'fps',
  'seed',
  'n',
  'response_format',
  'user',
]);

/** A route that answers 400 naming the first body field it does not know, else behaves as the default. */
function strict(fields: ReadonlySet<string>, route: Route): Route {
  return (req, res, gw) => {
    const unknown = Object.keys(req.json ?? {}).find((key) => !fields.has(key));
    if (unknown !== undefined)
      return sendJson(res, 400, errorEnvelope(`Unrecognized request argument supplied: ${unknown}`));
    return route(req, res, gw);
  };
}

async function strictGateway(): Promise<HostileGateway> {
  const gw = await startHostileGateway({
    routes: { chat: strict(CHAT_FIELDS, DEFAULTS.chat), videoSubmit: strict(VIDEO_FIELDS, DEFAULTS.videoSubmit) },
  });
  onTestFinished(() => gw.close());
  return gw;
}

const COLUMNS = ['id', 'kind', 'model', 'prompt', 'max_tokens', 'resolution', 'duration', 'notes', 'meta.owner'];
const ROWS = [
  {
    id: 'c1',
    kind: 'chat',
    model: 'chat-small',
    prompt: 'Name a planet.',
    max_tokens: 16,
    notes: 'from the spring list, $0.40 max',
    'meta.owner': 'ana',
  },
  {
    id: 'v1',
    kind: 'video',
    model: 'video-mini',
    prompt: 'A comet',
    resolution: '480p',
    duration: 2,
    notes: 'reshoot of v0',
    'meta.owner': 'bo',
  },
];

const posted = (gw: HostileGateway) => gw.requests.filter((r) => r.method === 'POST');

test.skipIf(!BUILT)(
  'a column that is no request field is refused before anything is sent: exit 2, one line with file, column and the hint; the hint works',
  async () => {
    const ws = workspace();
    const gw = await strictGateway();
    const manifest = writeCsv(ws.path('rows.csv'), COLUMNS, ROWS);
    const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--quiet'];
    const refused = await runCli(args, { env: gatewayEnv(gw.baseUrl, gw.key) });
    expect(refused.code, refused.stderr).toBe(2);
    const lines = refused.stderr.split('\n').filter((l) => l.includes("'notes'"));
    expect(lines).toEqual([
      `${manifest}:1 field 'notes': column 'notes' is not a request field of the gateway (nor id, kind, prompt, system, body), ` +
        "so it would be sent with every row; to keep it in the journal and results.jsonl without sending it, pass --meta-columns notes or name the column 'meta.notes'",
    ]);
    expect(gw.requests).toEqual([]);
    const planned = await runCli(['plan', manifest]);
    expect(planned.code).toBe(2);
    expect(planned.stderr).toContain(`${manifest}:1 field 'notes': column 'notes' is not a request field`);
    // The hint, pasted: the run goes through.
    const hinted = await runCli([...args, '--meta-columns', 'notes'], { env: gatewayEnv(gw.baseUrl, gw.key) });
    expect(hinted.code, hinted.stderr).toBe(0);
  },
);

test.skipIf(!BUILT)(
  'metadata columns reach the journal and results.jsonl and no request body; a strict gateway accepts every row',
  async () => {
    const ws = workspace();
    const gw = await strictGateway();
    const manifest = writeCsv(ws.path('rows.csv'), COLUMNS, ROWS);
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
        '--quiet',
        '--json',
        '--meta-columns',
        'notes',
      ],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(stdoutJson(run).counts).toMatchObject({ downloaded: 2, rejected: 0 });
    const bodies = posted(gw).map((r) => r.json as Record<string, unknown>);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).not.toHaveProperty('notes');
      expect(body).not.toHaveProperty('meta.owner');
      expect(body).not.toHaveProperty('owner');
      expect(JSON.stringify(body)).not.toMatch(/spring list|reshoot|"ana"|"bo"/);
    }
    const results = readFileSync(join(ws.out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.fromEntries(results.map((r) => [r.custom_id, r.meta]))).toEqual({
      c1: { notes: 'from the spring list, $0.40 max', owner: 'ana' },
      v1: { notes: 'reshoot of v0', owner: 'bo' },
    });
    const db = openSqliteFile(ws.state, { readonly: true });
    try {
      const rows = db.prepare('SELECT id, meta FROM items ORDER BY seq').all() as Array<{ id: string; meta: string }>;
      expect(rows.map((r) => [r.id, JSON.parse(r.meta)])).toEqual([
        ['c1', { notes: 'from the spring list, $0.40 max', owner: 'ana' }],
        ['v1', { notes: 'reshoot of v0', owner: 'bo' }],
      ]);
    } finally {
      db.close();
    }
  },
);

test.skipIf(!BUILT)(
  "JSONL: a flat line's unknown key is refused with the hint; a line's `meta` object is kept and never sent",
  async () => {
    const ws = workspace();
    const gw = await strictGateway();
    const chat = {
      id: 'c1',
      kind: 'chat',
      model: 'chat-small',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 8,
    };
    const refused = writeJsonl(ws.path('flat.jsonl'), [{ ...chat, notes: 'x' }]);
    const plan = await runCli(['plan', refused]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain(
      `${refused}:1 row 'c1' field 'notes': is not a chat request field of the gateway; to keep it without sending it, put it under "meta"`,
    );
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      { ...chat, meta: { ticket: 'T-1' } },
      {
        custom_id: 'b1',
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'chat-small', messages: [{ role: 'user', content: 'yo' }], max_tokens: 8 },
        meta: { ticket: 'T-2' },
      },
    ]);
    const run = await runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--quiet'], {
      env: gatewayEnv(gw.baseUrl, gw.key),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(posted(gw).map((r) => Object.keys(r.json as object).sort())).toEqual([
      ['max_tokens', 'messages', 'model'],
      ['max_tokens', 'messages', 'model'],
    ]);
    const results = readFileSync(join(ws.out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results.map((r) => [r.custom_id, r.meta])).toEqual([
      ['c1', { ticket: 'T-1' }],
      ['b1', { ticket: 'T-2' }],
    ]);
  },
);

test.skipIf(!BUILT)(
  "plan --show-requests N prints, byte for byte, the first N bodies the gateway then receives (the budget's output cap included)",
  async () => {
    const ws = workspace();
    const gw = await strictGateway();
    const manifest = writeCsv(
      ws.path('rows.csv'),
      ['id', 'kind', 'model', 'prompt', 'meta.note'],
      [
        { id: 'c1', kind: 'chat', model: 'chat-small', prompt: 'Say \u2028 "hi"', 'meta.note': 'kept' },
        { id: 'c2', kind: 'chat', model: 'chat-small', prompt: 'Second' },
        { id: 'c3', kind: 'chat', model: 'chat-small', prompt: 'Third' },
      ],
    );
    const plan = await runCli(['plan', manifest, '--budget', '5', '--show-requests', '2']);
    expect(plan.code, plan.stderr).toBe(0);
    const printed = plan.stdout.split('\n');
    const at = printed.indexOf('The first 2 request(s) exactly as `run` would send them:');
    expect(at).toBeGreaterThan(0);
    expect(printed.slice(at + 1, at + 5).filter((_, i) => i % 2 === 0)).toEqual([
      'POST /v1/chat/completions (row c1)',
      'POST /v1/chat/completions (row c2)',
    ]);
    const bodies = printed.slice(at + 1, at + 5).filter((_, i) => i % 2 === 1);
    // The separator is printed as its JSON escape: the same JSON, one line on a terminal.
    expect(bodies[0]).toContain('\\u2028');
    expect(JSON.parse(bodies[1]!)).toEqual({
      model: 'chat-small',
      messages: [{ role: 'user', content: 'Second' }],
      max_tokens: expect.any(Number),
    });
    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--budget', '5', '--concurrency', '1', '--quiet'],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    expect(run.code, run.stderr).toBe(0);
    const sent = posted(gw).map((r) => r.bodyText);
    expect(sent.slice(0, 2).map((t) => JSON.parse(t) as unknown)).toEqual(bodies.map((b) => JSON.parse(b!) as unknown));
    expect(sent.slice(0, 2)).toEqual(bodies.map((b) => b!.replace(/\\u2028/g, '\u2028')));
    const json = stdoutJson(await runCli(['plan', manifest, '--budget', '5', '--show-requests', '1', '--json']));
    expect(json.requests).toEqual([
      { id: 'c1', method: 'POST', url: '/v1/chat/completions', body: JSON.parse(sent[0]!) },
    ]);
  },
);
