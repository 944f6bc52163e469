// metadata.budget_usd caps what the gateway bills for a batch (rows that do not fit end budget_exceeded);
// a video batch's output line carries a file_id whose content is the downloaded, verified video.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import {
  batchEnd,
  chatLine,
  client,
  filesOf,
  startServe,
  submitBatch,
  TOKEN_A,
  videoLine,
} from '../../helpers/serve.js';

describe.skipIf(!BUILT)('gbatch serve: budget and video', () => {
  it('holds a batch to metadata.budget_usd: what does not fit ends budget_exceeded, nothing over is billed', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const ids = Array.from({ length: 6 }, (_, i) => `v${i}`);
    // video-mini 480p, 2 s: each row may bill up to $0.186 and bills ~$0.033, so $0.25 holds two, not six.
    const budget = 0.25;
    const created = await submitBatch(
      openai,
      ws.path('in.jsonl'),
      ids.map((id) => videoLine(id, `budget ${id}`)),
      { endpoint: '/v1/video/generations', metadata: { budget_usd: String(budget) } },
    );
    expect(await batchEnd(server, created.id)).toBe('completed');
    const batch = await openai.batches.retrieve(created.id);
    const { output, errors } = await filesOf(openai, batch);
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids);
    expect(output.length).toBeGreaterThan(0);
    expect(errors.length).toBeGreaterThan(0);
    for (const line of errors) expect(line.error).toMatchObject({ code: 'budget_exceeded' });
    const billed = sim.ledger.charges.reduce((sum, c) => sum + c.usd, 0);
    expect(billed).toBeLessThanOrEqual(budget);
    expect(posts(sim.ledger)).toBe(output.length);
  });

  it('refuses at validation a batch whose metadata.budget_usd is below the bound of a request, saying so', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    // Each row may bill up to $0.186 (its bound) though it bills ~$0.033: $0.10 can never send one.
    const created = await submitBatch(
      openai,
      ws.path('in.jsonl'),
      ['a', 'b'].map((id) => videoLine(id, `under bound ${id}`)),
      { endpoint: '/v1/video/generations', metadata: { budget_usd: '0.10' } },
    );
    const logged = await server.stderrMatching(new RegExp(`${created.id}: input failed validation`));
    expect(logged).toContain('2 error(s), nothing sent; the first: line 1: the request reserves its bound $0.18');
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.errors?.data).toHaveLength(2);
    for (const [i, error] of (batch.errors?.data ?? []).entries()) {
      expect(error).toMatchObject({ code: 'budget_below_bound', param: 'metadata.budget_usd', line: i + 1 });
      expect(error.message).toMatch(
        /^line \d: the request reserves its bound \$0\.18\d+ .* but metadata\.budget_usd is \$0\.10: it could never be sent; a budget_usd of at least \$0\.19 sends it$/,
      );
    }
    expect(posts(sim.ledger)).toBe(0);
  });

  it('serves a video through its file_id: the verified bytes, with their length and by Range', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const created = await submitBatch(openai, ws.path('in.jsonl'), [videoLine('clip', 'a red kite')], {
      endpoint: '/v1/video/generations',
    });
    expect(await batchEnd(server, created.id)).toBe('completed');
    const { output } = await filesOf(openai, await openai.batches.retrieve(created.id));
    expect(output).toHaveLength(1);
    const body = (output[0]!.response as { body: Record<string, unknown> }).body;
    expect(body).toMatchObject({ object: 'video.generation', status: 'SUCCESS' });
    expect(body).not.toHaveProperty('file');
    const fileId = body.file_id as string;
    const meta = await openai.files.retrieve(fileId);
    expect(meta.bytes).toBe(body.bytes);
    const response = await openai.files.content(fileId);
    expect(response.headers.get('content-length')).toBe(String(body.bytes));
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(body.sha256);
    const tail = await fetch(`${server.url}/files/${fileId}/content`, {
      headers: { authorization: `Bearer ${TOKEN_A}`, range: 'bytes=-100' },
    });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${bytes.length - 100}-${bytes.length - 1}/${bytes.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 100))).toBe(true);
    // Chat lines in a video batch are refused at validation: the endpoint is the batch's.
    const mixed = await submitBatch(openai, ws.path('mixed.jsonl'), [chatLine('t', 'x')], {
      endpoint: '/v1/video/generations',
    });
    await server.stderrMatching(new RegExp(`${mixed.id}: input failed validation`));
  });
});

describe.skipIf(!BUILT)('gbatch serve: --budget', () => {
  it('holds all batches together to --budget: their bills sum to no more, the rest budget_exceeded', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    // Each row may bill up to $0.186 and bills ~$0.033: $0.25 holds two rows of the six, whichever batch.
    const budget = 0.25;
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--budget', String(budget)],
    });
    const openai = client(server);
    const batches = [];
    for (const name of ['x', 'y']) {
      const ids = [0, 1, 2].map((i) => `${name}${i}`);
      const lines = ids.map((id) => videoLine(id, `shared budget ${id}`));
      batches.push(await submitBatch(openai, ws.path(`${name}.jsonl`), lines, { endpoint: '/v1/video/generations' }));
    }
    let succeeded = 0;
    for (const created of batches) {
      expect(await batchEnd(server, created.id)).toBe('completed');
      const { output, errors } = await filesOf(openai, await openai.batches.retrieve(created.id));
      expect(output.length + errors.length).toBe(3);
      for (const line of errors) expect(line.error).toMatchObject({ code: 'budget_exceeded' });
      succeeded += output.length;
    }
    expect(succeeded).toBeGreaterThan(0);
    expect(succeeded).toBeLessThan(6);
    const billed = sim.ledger.charges.reduce((sum, c) => sum + c.usd, 0);
    expect(billed).toBeLessThanOrEqual(budget);
    expect(posts(sim.ledger)).toBe(succeeded);
  });
});
