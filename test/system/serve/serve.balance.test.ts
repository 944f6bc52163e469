// The gateway's 402 (its balance ran out) stops the submissions of every batch of the server, not only
// of the batch that got it: from the gateway's ledger, no request of any batch leaves after the 402.
// Tasks accepted before it are still polled and downloaded; the unsent requests end budget_exceeded.
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { batchEnd, chatLine, client, filesOf, startServe, submitBatch, videoLine } from '../../helpers/serve.js';

describe.skipIf(!BUILT)('gbatch serve: the gateway balance', () => {
  it('stops every batch at the first 402: nothing sent after it, accepted videos still delivered', async () => {
    // video-mini 480p, 2 s: the gateway holds about $0.03 per task while it runs, so $0.10 takes a few.
    const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 0.1 }], taskSeconds: 0.5 });
    const ws = workspace('gbatch-serve-');
    // One send at a time, the batches in turn: the one that did not get the 402 has its next request queued.
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl, args: ['--concurrency', '1'] });
    const openai = client(server);
    const batches = [];
    for (const name of ['a', 'b']) {
      const lines = Array.from({ length: 12 }, (_, i) => videoLine(`${name}${i}`, `balance ${name}${i}`));
      batches.push(await submitBatch(openai, ws.path(`${name}.jsonl`), lines, { endpoint: '/v1/video/generations' }));
    }
    const files = [];
    for (const created of batches) {
      expect(await batchEnd(server, created.id)).toBe('completed');
      files.push(await filesOf(openai, await openai.batches.retrieve(created.id)));
    }
    const submissions = sim.ledger.requests.filter((r) => r.method === 'POST');
    const first402 = submissions.findIndex((r) => r.status === 402);
    expect(first402).toBeGreaterThan(0);
    // The 402 was the last request either batch sent.
    expect(submissions.slice(first402 + 1)).toEqual([]);
    const accepted = sim.ledger.tasks.length;
    expect(accepted).toBe(first402);
    let delivered = 0;
    for (const [n, { output, errors }] of files.entries()) {
      const name = n === 0 ? 'a' : 'b';
      expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `${name}${i}`).sort(),
      );
      for (const line of errors)
        expect(line.error).toMatchObject({ code: 'budget_exceeded', message: expect.stringMatching(/402/) });
      delivered += output.length;
    }
    // Every task the gateway accepted before the 402 was polled to its end and downloaded.
    expect(delivered).toBe(accepted);
    expect(sim.ledger.tasks.every((t) => t.state === 'SUCCESS')).toBe(true);
    expect(server.stderr()).toMatch(/balance ran out \(402\): no batch sends more/);

    // A batch created after the 402 is not stopped by it: the balance left covers a chat request, and it is sent.
    expect(sim.account(KEY).balanceUsd).toBeGreaterThan(0.0001);
    const later = await submitBatch(openai, ws.path('later.jsonl'), [chatLine('later', 'after the 402')]);
    expect(await batchEnd(server, later.id)).toBe('completed');
    expect((await filesOf(openai, await openai.batches.retrieve(later.id))).output).toHaveLength(1);
  });
});
