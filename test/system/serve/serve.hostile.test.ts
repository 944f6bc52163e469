// `gbatch serve` against the hostile gateway: a dearer final resolution than asked, answers without usage,
// a refusal that echoes the gateway key. The gateway's own ledger proves each batch's bill stays within its
// budget_usd, and the key appears in no file, response or log line the server produces.
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { workspace } from '../../helpers/workspace.js';
import {
  DEFAULTS,
  errorEnvelope,
  HOSTILE_KEY,
  sendJson,
  startHostileGateway,
  worstChatUsage,
  chatUsd,
} from '../../helpers/hostile-gateway.js';
import { batchEnd, chatLine, client, filesOf, startServe, submitBatch, videoLine } from '../../helpers/serve.js';

describe.skipIf(!BUILT)('gbatch serve: a hostile gateway', () => {
  it('keeps each batch within budget_usd and never lets the gateway key out', async () => {
    const gw = await startHostileGateway({
      // Every video is delivered (and billed) at 1080p, whatever was asked.
      finalResolution: () => '1080p',
      routes: {
        chat: (req, res, g) => {
          const prompt = String(req.json.messages?.[0]?.content ?? '');
          if (prompt.includes('refuse')) return sendJson(res, 400, errorEnvelope(`invalid request (key ${req.key})`));
          if (prompt.includes('no usage')) {
            // Billed for its true usage, reported without any.
            g.charges.push({
              kind: 'chat',
              ref: prompt,
              usd: chatUsd(req.json.model, worstChatUsage(req.json)),
              note: 'not reported',
            });
            return sendJson(res, 200, {
              id: `chatcmpl-${prompt.length}`,
              object: 'chat.completion',
              created: 0,
              model: req.json.model,
              choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            });
          }
          return DEFAULTS.chat(req, res, g);
        },
      },
    });
    onTestFinished(() => gw.close());
    const ws = workspace('gbatch-serve-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: gw.baseUrl,
      env: { GATEWAY_API_KEY: HOSTILE_KEY },
    });
    const openai = client(server);
    // Each may bill up to $0.186 (at 1080p, the dearest): $0.25 holds two of the five at a time.
    const videoBudget = 0.25;
    const videos = await submitBatch(
      openai,
      ws.path('videos.jsonl'),
      [0, 1, 2, 3, 4].map((i) => videoLine(`v${i}`, `hostile video ${i}`)),
      { endpoint: '/v1/video/generations', metadata: { budget_usd: String(videoBudget) } },
    );
    const chats = await submitBatch(
      openai,
      ws.path('chats.jsonl'),
      [chatLine('plain', 'hello'), chatLine('quiet', 'no usage please'), chatLine('refused', 'refuse this')],
      { metadata: { budget_usd: '1' } },
    );
    expect(await batchEnd(server, videos.id)).toBe('completed');
    expect(await batchEnd(server, chats.id)).toBe('completed');
    const videoFiles = await filesOf(openai, await openai.batches.retrieve(videos.id));
    expect(videoFiles.output.length + videoFiles.errors.length).toBe(5);
    expect(videoFiles.output.length).toBeGreaterThan(0);
    expect(videoFiles.errors.length).toBeGreaterThan(0);
    const videoBilled = gw.charges.filter((c) => c.kind === 'video').reduce((sum, c) => sum + c.usd, 0);
    expect(videoBilled).toBeLessThanOrEqual(videoBudget);
    for (const line of videoFiles.output)
      expect((line.response as { body: { final_resolution: string } }).body.final_resolution).toBe('1080p');
    const chatFiles = await filesOf(openai, await openai.batches.retrieve(chats.id));
    expect(chatFiles.output.map((l) => l.custom_id).sort()).toEqual(['plain', 'quiet']);
    expect(chatFiles.errors.map((l) => l.custom_id)).toEqual(['refused']);
    expect(chatFiles.errors[0]).toMatchObject({ response: { status_code: 400 } });
    expect(chatFiles.errors[0]!.error).toBeNull();
    expect(chatFiles.errors[0]).toMatchObject({
      response: { body: { error: { message: 'invalid request (key [redacted])' } } },
    });
    // The key echoed by the refusal is not in the error file, the batch objects, the list, or the log.
    const everything = [
      JSON.stringify(chatFiles),
      JSON.stringify(videoFiles),
      JSON.stringify(await openai.batches.list()),
      server.stderr(),
    ].join('\n');
    expect(everything).toContain('refused');
    expect(everything).not.toContain(HOSTILE_KEY);
  });
});
