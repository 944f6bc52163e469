// Cancelling a batch mid-run (requests held at the gateway): nothing more is sent, the batch ends
// cancelled, every request in exactly one file; and the list of batches, newest first, paged.
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import OpenAI from 'openai';
import {
  batchEnd,
  chatLine,
  client,
  filesOf,
  heldChatBatch,
  startServe,
  submitBatch,
  TOKEN_A,
} from '../../helpers/serve.js';

describe.skipIf(!BUILT)('gbatch serve: cancel and list', () => {
  it('cancels a running batch: in-flight requests settle, the rest end batch_cancelled, nothing more is sent', async () => {
    const ws = workspace('gbatch-serve-');
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const { held, sim, server, created } = await heldChatBatch(ws, ids, 'prompt');
    const openai = client(server);
    // The input of a live batch stays: each run (a restart's included) reads it.
    await expect(openai.files.delete(created.input_file_id)).rejects.toMatchObject({ status: 409 });
    const cancelling = await openai.batches.cancel(created.id);
    expect(cancelling.status).toBe('cancelling');
    expect(cancelling.cancelling_at).toBeGreaterThan(0);
    held.release();
    expect(await batchEnd(server, created.id)).toBe('cancelled');
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.status).toBe('cancelled');
    expect(batch.cancelled_at).toBeGreaterThan(0);
    const { output, errors } = await filesOf(openai, batch);
    expect(output).toHaveLength(2);
    expect(errors).toHaveLength(6);
    for (const line of errors) expect(line.error).toMatchObject({ code: 'batch_cancelled' });
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids);
    expect(batch.request_counts).toEqual({ total: 8, completed: 2, failed: 6 });
    expect(posts(sim.ledger)).toBe(2);
    // A finished batch's cancel is one request: its 400 is not one the SDK retries (it retries 409).
    let requests = 0;
    const counted = new OpenAI({
      baseURL: server.url,
      apiKey: TOKEN_A,
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        requests++;
        return fetch(input, init);
      },
    });
    await expect(counted.batches.cancel(created.id)).rejects.toMatchObject({
      status: 400,
      error: {
        type: 'invalid_request_error',
        code: 'batch_not_cancellable',
        message: expect.stringContaining("'cancelled'"),
      },
    });
    expect(requests).toBe(1);
  });

  it("takes an operator's `gbatch cancel` of the batch's job: the batch completes, unsent requests batch_cancelled", async () => {
    const ws = workspace('gbatch-serve-');
    const ids = Array.from({ length: 6 }, (_, i) => `o${i}`);
    const { held, sim, server, created } = await heldChatBatch(ws, ids, 'operator');
    const openai = client(server);
    const journal = ws.path('data', 'journals', `${created.id}.db`);
    const cancel = runCli(['cancel', created.id, '--state', journal, '--reason', 'operator']);
    await server.stderrMatching(/cancel/i);
    held.release();
    expect((await cancel).code).toBe(0);
    expect(await batchEnd(server, created.id)).toBe('completed');
    const { output, errors } = await filesOf(openai, await openai.batches.retrieve(created.id));
    expect(output).toHaveLength(2);
    expect(errors.map((l) => (l.error as { code: string }).code)).toEqual(Array(4).fill('batch_cancelled'));
    expect(posts(sim.ledger)).toBe(2);
  });

  it('lists batches newest first, paged by limit and after as the SDK pages them', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const batch = await submitBatch(openai, ws.path(`in${i}.jsonl`), [chatLine(`p${i}`, `page ${i}`)]);
      made.push(batch.id);
    }
    const first = await openai.batches.list({ limit: 2 });
    expect(first.data.map((b) => b.id)).toEqual([made[2], made[1]]);
    expect(first.has_more).toBe(true);
    const all: string[] = [];
    for await (const batch of openai.batches.list({ limit: 2 })) all.push(batch.id);
    expect(all).toEqual([...made].reverse());
    const files = await openai.files.list({ limit: 2 });
    expect(files.data).toHaveLength(2);
  });

  it('paces every batch together under one --rpm', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    // 120 per minute: never more than two requests in any second, whichever batch sends them.
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl, args: ['--rpm', '120'] });
    const openai = client(server);
    const batches = await Promise.all(
      ['a', 'b'].map((name) =>
        submitBatch(openai, ws.path(`${name}.jsonl`), [
          chatLine(`${name}1`, `rpm ${name}1`),
          chatLine(`${name}2`, `rpm ${name}2`),
        ]),
      ),
    );
    for (const batch of batches) expect(await batchEnd(server, batch.id)).toBe('completed');
    const times = sim.ledger.requests.filter((r) => r.method === 'POST').map((r) => r.at);
    expect(times).toHaveLength(4);
    times.sort((a, b) => a - b);
    // Any three requests span a second (a few ms less: the gateway stamps each on arrival).
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(950);
    expect(times[3]! - times[1]!).toBeGreaterThanOrEqual(950);
  });
});
