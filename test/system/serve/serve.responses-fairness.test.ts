// A /v1/responses batch end to end through the SDK, and fairness between batches: a small batch created
// after a large one is served at once, in turn with it, and ends long before it (the gateway's ledger
// shows the order the requests arrived in).
import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { duplicates, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { batchEnd, chatLine, client, filesOf, startServe, submitBatch, writeLines } from '../../helpers/serve.js';

const responsesLine = (id: string, input: string): Record<string, unknown> => ({
  custom_id: id,
  method: 'POST',
  url: '/v1/responses',
  body: { model: 'chat-small', input },
});

describe.skipIf(!BUILT)('gbatch serve: /v1/responses', () => {
  it('runs a responses batch through the SDK: each answer in the output file as the gateway gave it', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const ids = ['r0', 'r1', 'r2'];
    writeLines(
      ws.path('in.jsonl'),
      ids.map((id) => responsesLine(id, `responses ${id}`)),
    );
    const input = await openai.files.create({ file: createReadStream(ws.path('in.jsonl')), purpose: 'batch' });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/responses',
      completion_window: '24h',
    });
    expect(created.endpoint).toBe('/v1/responses');
    expect(await batchEnd(server, created.id)).toBe('completed');
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    const { output, errors } = await filesOf(openai, batch);
    expect(errors).toEqual([]);
    expect(output.map((l) => l.custom_id).sort()).toEqual(ids);
    for (const line of output) {
      const response = line.response as { status_code: number; body: Record<string, unknown> };
      expect(response.status_code).toBe(200);
      expect(response.body).toMatchObject({ object: 'response', status: 'completed', model: 'chat-small' });
      expect(response.body.output).toEqual(expect.any(Array));
    }
    const sent = sim.ledger.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    expect(sent).toEqual(Array(3).fill('/v1/responses'));
  });
});

describe.skipIf(!BUILT)('gbatch serve: fairness', () => {
  it('serves a small batch created after a large one in turn with it: the small one ends long before', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl, args: ['--concurrency', '4'] });
    const openai = client(server);
    const big = await submitBatch(
      openai,
      ws.path('big.jsonl'),
      Array.from({ length: 2000 }, (_, i) => chatLine(`big-${i}`, `fair big-${i}`)),
    );
    // The large batch is sending when the small one is created.
    while (posts(sim.ledger) < 100) await nextTurn();
    const small = await submitBatch(
      openai,
      ws.path('small.jsonl'),
      Array.from({ length: 20 }, (_, i) => chatLine(`small-${i}`, `fair small-${i}`)),
    );
    expect(await batchEnd(server, small.id)).toBe('completed');
    expect(await batchEnd(server, big.id)).toBe('completed');
    const order = sim.ledger.requests
      .filter((r) => r.method === 'POST')
      .map((r) => {
        const content = (r.body as { messages: Array<{ content: string }> }).messages[0]!.content;
        return content.includes('small-') ? 'small' : 'big';
      });
    expect(order).toHaveLength(2020);
    const firstSmall = order.indexOf('small');
    const lastSmall = order.lastIndexOf('small');
    // From its first request on, the small batch had every other slot: its 20 went out within ~40
    // requests (plus what was on the wire), while the large batch still had most of its rows to send.
    expect(lastSmall - firstSmall).toBeLessThan(60);
    expect(order.length - 1 - lastSmall).toBeGreaterThan(1000);
    const smallBatch = await openai.batches.retrieve(small.id);
    const bigBatch = await openai.batches.retrieve(big.id);
    expect(smallBatch.completed_at!).toBeLessThanOrEqual(bigBatch.completed_at!);
    expect((await filesOf(openai, smallBatch)).output).toHaveLength(20);
    expect(duplicates(sim.ledger)).toEqual({});
  }, 60_000);
});

/** One turn of the event loop: the ledger is read again once requests had a chance to arrive. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
