// What a client reads of its batch's answers: the batch's `usage` summed from the gateway's usage objects
// (details included), and a refused request's error line carrying the gateway's status, request id and body
// exactly as the gateway sent them, with `error: null`, as OpenAI's error file has it.
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { HOSTILE_KEY, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { batchEnd, chatLine, client, filesOf, startServe, submitBatch } from '../../helpers/serve.js';
import { workspace } from '../../helpers/workspace.js';

/** A refusal with fields OpenAI's envelope lacks and a message with spaces and a line break kept as they are. */
const REFUSAL = {
  error: {
    message: '  no such model\n  (chat-small is not served here) ',
    type: 'invalid_request_error',
    param: 'model',
    code: 'model_not_found',
  },
  hint: { retry: false, docs: ['a', 1] },
};

const usageOf = (n: number): Record<string, unknown> => ({
  prompt_tokens: 10 * n,
  completion_tokens: n,
  total_tokens: 11 * n,
  prompt_tokens_details: { cached_tokens: n },
  completion_tokens_details: { reasoning_tokens: 2 * n },
});

describe.skipIf(!BUILT)('gbatch serve: the answers a client reads', () => {
  it("sums the batch's usage and keeps a refusal's status, request id and body as the gateway sent them", async () => {
    const gw = await startHostileGateway({
      routes: {
        chat: (req, res) => {
          const prompt = String(req.json.messages?.[0]?.content ?? '');
          if (prompt === 'refuse') return sendJson(res, 404, REFUSAL, { 'x-request-id': 'req-gw-refused-7' });
          const n = Number(prompt);
          return sendJson(res, 200, {
            id: `chatcmpl-${n}`,
            object: 'chat.completion',
            created: 0,
            model: req.json.model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: usageOf(n),
          });
        },
      },
    });
    onTestFinished(() => gw.close());
    const ws = workspace('gbatch-serve-answers-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: gw.baseUrl,
      env: { GATEWAY_API_KEY: HOSTILE_KEY },
    });
    const openai = client(server);
    const batch = await submitBatch(openai, ws.path('in.jsonl'), [
      chatLine('one', '1'),
      chatLine('refused', 'refuse'),
      chatLine('three', '3'),
    ]);
    expect(await batchEnd(server, batch.id)).toBe('completed');
    const final = await openai.batches.retrieve(batch.id);
    expect(final.usage).toEqual({
      input_tokens: 40,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 8 },
      total_tokens: 44,
    });
    expect(final.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
    const files = await filesOf(openai, final);
    expect(files.errors).toEqual([
      {
        id: 'batch_req_2',
        custom_id: 'refused',
        response: { status_code: 404, request_id: 'req-gw-refused-7', body: REFUSAL },
        error: null,
      },
    ]);
  });
});
