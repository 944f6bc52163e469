// serve's log speaks the Batch API's words: batches, requests and their counts, never the CLI's journal,
// its later runs or a command a client of the server cannot act on.
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { workspace } from '../../helpers/workspace.js';
import { DEFAULTS, errorEnvelope, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';
import type OpenAI from 'openai';
import { batchEnd, chatLine, client, filesOf, startServe, submitBatch, videoLine } from '../../helpers/serve.js';

const CLI_SPEAK = [
  /journal/i,
  /later run/i,
  /earlier run/i,
  /next (gbatch )?run/i,
  /`gbatch/,
  /gbatch (run|resolve|status|retry|cancel)/i,
  /--(state|resume|abandon|all-uncertain|drain|no-budget)\b/,
  /\bitem(s|\(s\))?\b/,
];
// The server's own flag, named in its own lines; a run of a batch never says `--budget`.
const SERVER_BUDGET = /the server's --budget/g;

describe.skipIf(!BUILT)('gbatch serve: its log', () => {
  it('names batches and request counts in the Batch API words, never the CLI', async () => {
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    let heldArrived!: () => void;
    const heldSeen = new Promise<void>((resolve) => (heldArrived = resolve));
    const gw = await startHostileGateway({
      failReason: (task) => (task.prompt.includes('fails') ? 'the model refused' : undefined),
      routes: {
        chat: async (req, res, g) => {
          const prompt = String(req.json.messages?.[0]?.content ?? '');
          if (prompt.includes('refuse')) return sendJson(res, 400, errorEnvelope('invalid request'));
          if (prompt.includes('drop')) return void res.socket?.destroy();
          if (prompt.includes('hold')) {
            heldArrived();
            await held;
          }
          return DEFAULTS.chat(req, res, g);
        },
      },
    });
    onTestFinished(() => {
      releaseHeld();
      return gw.close();
    });
    const ws = workspace('gbatch-serve-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: gw.baseUrl,
      env: { GATEWAY_API_KEY: gw.key },
      // One request at a time: the cancelled batch's second request is never sent.
      args: ['--concurrency', '1', '--budget', '5', '--retry-failed', '1', '--retry-backoff', '0.05'],
    });
    const openai = client(server);
    const mixed = await submitBatch(openai, ws.path('mixed.jsonl'), [
      chatLine('plain', 'hello'),
      chatLine('refused', 'refuse this'),
      chatLine('dropped', 'drop this'),
    ]);
    // chat-large at 600,000 tokens may bill $6: under the server's --budget of $5 it is held back by the budget. (A
    // batch's own metadata.budget_usd below a request's bound is refused at validation instead.)
    const poor = await submitBatch(openai, ws.path('poor.jsonl'), [
      chatLine('dear', 'too dear', { model: 'chat-large', max_tokens: 600_000 }),
    ]);
    const failing = await submitBatch(openai, ws.path('video.jsonl'), [videoLine('clip', 'a clip that fails')], {
      endpoint: '/v1/video/generations',
    });
    expect(await batchEnd(server, mixed.id)).toBe('completed');
    expect(await batchEnd(server, poor.id)).toBe('completed');
    expect(await batchEnd(server, failing.id)).toBe('completed');
    const cancelled = await submitBatch(openai, ws.path('held.jsonl'), [
      chatLine('held', 'hold this'),
      chatLine('unsent', 'never sent'),
    ]);
    await heldSeen;
    await openai.batches.cancel(cancelled.id);
    releaseHeld();
    expect(await batchEnd(server, cancelled.id)).toBe('cancelled');
    const codes = async (batch: OpenAI.Batch) =>
      (await filesOf(openai, await openai.batches.retrieve(batch.id))).errors.map((line) => [
        line.custom_id,
        (line.response as { status_code: number } | null)?.status_code ?? (line.error as { code: string }).code,
      ]);
    expect(await codes(mixed)).toEqual([
      ['refused', 400],
      ['dropped', 'uncertain'],
    ]);
    expect(await codes(poor)).toEqual([['dear', 'budget_exceeded']]);
    expect(await codes(cancelled)).toEqual([['unsent', 'batch_cancelled']]);
    await server.stop();
    const log = server.stderr();
    for (const word of CLI_SPEAK) expect(log).not.toMatch(word);
    expect(log.replace(SERVER_BUDGET, '')).not.toMatch(/--budget/);
    expect(log).toContain(`${mixed.id}: in_progress: 3 request(s); the server's --budget: `);
    expect(log).toContain(`${mixed.id}: completed: 1 request(s) in the output file, 2 in the error file`);
    expect(log).toContain(`${poor.id}: completed: 0 request(s) in the output file, 1 in the error file`);
    expect(log).toContain(`${failing.id}: completed: 0 request(s) in the output file, 1 in the error file`);
    expect(log).toContain(`${cancelled.id}: cancelled: 1 request(s) in the output file, 1 in the error file`);
    expect(log).toContain(`${poor.id}: 1 request(s) held back by the budget; the first (dear) needs up to $`);
    expect(log).toContain(`${mixed.id}: budget $`);
    expect(log).toContain(`in force for the batch, all its requests together`);
    expect(log).toContain(`${cancelled.id}: cancelled (`);
    expect(log).toContain('requests not sent end batch_cancelled in the error file');
  });
});
