// Issue 10, item 8: an answer larger than --max-response-bytes is not read into memory. A chat answer
// over it fails its row with a clear error, booked at its reservation (the gateway bills it), and is
// never sent again; a video submission whose task id is in the unread body is uncertain.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { chatUsd, DEFAULTS, sendJson, startHostileGateway, worstChatUsage } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { openSyncJournal } from '../../helpers/journal-raw.js';

test.skipIf(!BUILT)(
  'answers over --max-response-bytes: failed and booked (chat), uncertain (video), never resent',
  async () => {
    const ws = workspace();
    const huge = 'x'.repeat(200_000);
    const gw = await startHostileGateway({
      routes: {
        chat: (req, res, g) => {
          const prompt: string = req.json.messages[0].content;
          if (prompt === 'small') return DEFAULTS.chat(req, res, g);
          const usage = worstChatUsage(req.json);
          g.charges.push({ kind: 'chat', ref: prompt, usd: chatUsd(req.json.model, usage), note: 'huge answer' });
          const body = JSON.stringify({
            id: 'chatcmpl-huge',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: huge } }],
            usage,
          });
          if (prompt === 'declared') {
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
            res.end(body);
          } else {
            // No content-length: the cap must hold while the body streams in.
            res.writeHead(200, { 'content-type': 'application/json' });
            for (let i = 0; i < body.length; i += 16_384) res.write(body.slice(i, i + 16_384));
            res.end();
          }
        },
        videoSubmit: (req, res, g) => {
          const id = `task_huge_${g.requests.length}`;
          sendJson(res, 200, { id, task_id: id, status: 'queued', padding: huge });
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow('declared', 'declared'),
      chatRow('streamed', 'streamed'),
      chatRow('small', 'small'),
      videoRow('clip', 'a comet'),
    ]);
    const args = [
      'run',
      manifest,
      '--state',
      ws.state,
      '--out',
      ws.out,
      '--poll-interval',
      '0.02',
      '--max-response-bytes',
      '65536',
      '--json',
    ];
    const env = gatewayEnv(gw.baseUrl, gw.key);

    const first = await runCli(args, { env });

    expect(first.code, first.stderr).toBe(4); // the video is uncertain: an operator decides
    expect(first.stderr).not.toMatch(/internal error|\n\s+at /);
    const journal = openSyncJournal(ws.state, { readonly: true });
    for (const id of ['declared', 'streamed']) {
      expect(journal.get(id)).toMatchObject({
        state: 'failed',
        reservedUsd: 0,
        lastError: { code: 'response_too_large', message: 'answer larger than --max-response-bytes (65536 bytes)' },
      });
      // Booked at its reservation: the most the gateway can bill for the row (the bound), never less than the estimate.
      expect(journal.get(id)!.actualUsd).toBeGreaterThanOrEqual(journal.get(id)!.estimateUsd);
    }
    expect(journal.get('small')!.state).toBe('downloaded');
    expect(journal.get('clip')!.state).toBe('uncertain');
    journal.close();
    // The report books each oversize row at its reservation, never at zero.
    const report = stdoutJson(await runCli(['report', '--state', ws.state, '--format', 'json']));
    for (const id of ['declared', 'streamed']) {
      const item = report.items.find((i: { id: string }) => i.id === id);
      expect(item.actual_usd).toBeGreaterThan(0);
      expect(item.actual_usd).toBeGreaterThanOrEqual(item.estimated_usd);
    }
    // What the gateway billed for the chat rows is covered by what gbatch booked.
    const chatBilled = gw.charges.filter((c) => c.kind === 'chat').reduce((sum, c) => sum + c.usd, 0);
    const chatBooked = report.items
      .filter((i: { kind: string }) => i.kind === 'chat')
      .reduce((sum: number, i: { actual_usd: number | null }) => sum + (i.actual_usd ?? 0), 0);
    expect(chatBooked).toBeGreaterThanOrEqual(chatBilled);
    const lines = readFileSync(join(ws.out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(['declared', 'streamed', 'small']);
    expect(lines[0]).toMatchObject({ response: null, error: { code: 'response_too_large' } });

    const posts = gw.requests.filter((r) => r.method === 'POST').length;
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(4);
    expect(gw.requests.filter((r) => r.method === 'POST').length).toBe(posts); // nothing sent again
  },
);
