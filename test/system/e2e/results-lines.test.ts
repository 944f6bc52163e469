// Issue 10, item 19: results.jsonl has exactly one line per item in a final state, whatever the
// outcome: answers, videos on disk, refusals, failed tasks and invalid rows, in manifest order.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { TERMINAL } from '../../../src/core/states.js';
import { DEFAULTS, errorEnvelope, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { sha256File, workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  'a mixed campaign with failures: one line per final row, unique ids, states as in the journal',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      failReason: (task) => (task.prompt === 'doomed clip' ? 'upstream content policy' : undefined),
      routes: {
        chat: (req, res, g) => {
          if (req.json.messages[0].content === 'refused') {
            sendJson(
              res,
              400,
              errorEnvelope('max_tokens is too large', 'invalid_request_error', 'max_tokens_too_large'),
            );
            return;
          }
          DEFAULTS.chat(req, res, g);
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow('c-ok', 'fine'),
      videoRow('v-ok', 'a fine clip'),
      chatRow('c-refused', 'refused'),
      '{"id": "bad-row", "kind": "chat"}',
      videoRow('v-failed', 'doomed clip'),
      { id: 'r-ok', kind: 'responses', model: 'chat-small', input: 'hello', max_output_tokens: 16 },
    ]);
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
        '--retry-failed',
        '0',
        '--skip-invalid',
      ],
      {
        env: gatewayEnv(gw.baseUrl, gw.key),
      },
    );
    expect(run.code, run.stderr).toBe(1);

    const { items } = readJournal(ws.state);
    const final = items.filter((i) => TERMINAL.has(i.state));
    expect(final).toHaveLength(items.length);
    const lines = readFileSync(join(ws.out, 'results.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(final.map((i) => i.id)); // one each, manifest order
    expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
    const line = (id: string) => lines.find((l) => l.custom_id === id);
    const state = (id: string) => items.find((i) => i.id === id)!;

    expect(state('c-ok').state).toBe('downloaded');
    expect(line('c-ok')).toMatchObject({
      response: { status_code: 200, body: { object: 'chat.completion' } },
      error: null,
    });
    expect(line('r-ok')).toMatchObject({ response: { status_code: 200, body: { object: 'response' } }, error: null });
    const video = state('v-ok');
    expect(line('v-ok')).toEqual({
      id: expect.any(String),
      custom_id: 'v-ok',
      error: null,
      response: {
        status_code: 200,
        request_id: null,
        body: {
          object: 'video.generation',
          task_id: video.taskId,
          status: 'SUCCESS',
          final_resolution: '480p',
          file: video.outputPath,
          sha256: video.sha256,
          bytes: video.bytes,
        },
      },
    });
    expect(sha256File(video.outputPath!)).toBe(video.sha256);
    expect(state('c-refused').state).toBe('rejected');
    expect(line('c-refused')).toMatchObject({
      response: { status_code: 400, body: { error: { message: expect.stringContaining('max_tokens is too large') } } },
      error: { code: 'max_tokens_too_large', message: expect.stringContaining('max_tokens is too large') },
    });
    expect(state('v-failed').state).toBe('failed');
    expect(line('v-failed')).toEqual({
      id: expect.any(String),
      custom_id: 'v-failed',
      response: null,
      error: { code: 'task_failed', message: 'upstream content policy' },
    });
    expect(state('bad-row').state).toBe('invalid');
    expect(line('bad-row')).toMatchObject({
      response: null,
      error: { code: 'invalid_row', message: expect.stringContaining('model') },
    });
  },
);
