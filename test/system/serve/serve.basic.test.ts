// `gbatch serve` driven by the official `openai` SDK against the simulator: upload, create, wait for the
// end, read the output and error files; bad input fails with errors naming the lines; tokens and owners.
import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { batchEnd, chatLine, client, jsonLines, startServe, TOKEN_B, writeLines } from '../../helpers/serve.js';

describe.skipIf(!BUILT)('gbatch serve: the Batch API over the simulator', () => {
  it('runs a chat batch to completed: every request in the output file, counts and timestamps set', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const input = writeLines(
      ws.path('in.jsonl'),
      Array.from({ length: 5 }, (_, i) => chatLine(`r${i}`, `hello ${i}`)),
    );
    const file = await openai.files.create({ file: createReadStream(input), purpose: 'batch' });
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'in.jsonl' });
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { team: 'a' },
    });
    expect(created.status).toBe('validating');
    expect(await batchEnd(server, created.id)).toBe('completed');
    const batch = await openai.batches.retrieve(created.id);
    expect(batch).toMatchObject({
      status: 'completed',
      request_counts: { total: 5, completed: 5, failed: 0 },
      metadata: { team: 'a' },
    });
    // No error file: the field is left out (OpenAI's schema types it a string, never null).
    expect(batch).not.toHaveProperty('error_file_id');
    for (const stamp of ['created_at', 'in_progress_at', 'finalizing_at', 'completed_at'] as const)
      expect(batch[stamp]).toBeGreaterThan(0);
    const output = jsonLines(await (await openai.files.content(batch.output_file_id!)).text());
    expect(output.map((l) => l.custom_id).sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    for (const line of output) {
      expect(line).toMatchObject({ response: { status_code: 200 }, error: null });
      expect((line.response as { body: { object: string } }).body.object).toBe('chat.completion');
    }
    expect(posts(sim.ledger)).toBe(5);
    // The batch is a job of its journal: `gbatch status` reads it by its batch id.
    const status = await runCli([
      'status',
      created.id,
      '--state',
      ws.path('data', 'journals', `${created.id}.db`),
      '--json',
    ]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ job: created.id, counts: { downloaded: 5 } });
    // The uploaded file reads back as it was sent, whole and by range.
    const content = await (await openai.files.content(file.id)).text();
    expect(jsonLines(content)).toHaveLength(5);
    const partial = await fetch(`${server.url}/files/${file.id}/content`, {
      headers: { authorization: `Bearer tok-serve-alice-3f9c`, range: 'bytes=0-9' },
    });
    expect(partial.status).toBe(206);
    expect(await partial.text()).toBe(content.slice(0, 10));
    await server.stop();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toMatch(/SIGTERM: stopping/);
  });

  it('fails a batch whose input has bad lines, naming each line and reason, and sends nothing', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const input = writeLines(ws.path('bad.jsonl'), [
      chatLine('ok-1', 'fine'),
      '{not json',
      chatLine('bad-model', 'x', { model: 'no-such-model' }),
      { ...chatLine('wrong-url', 'y'), url: '/v1/responses', body: { model: 'chat-small', input: 'y' } },
    ]);
    const file = await openai.files.create({ file: createReadStream(input), purpose: 'batch' });
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await server.stderrMatching(new RegExp(`${created.id}: input failed validation`));
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.status).toBe('failed');
    expect(batch.failed_at).toBeGreaterThan(0);
    const lines = batch.errors!.data!.map((e) => e.line);
    expect(lines).toEqual(expect.arrayContaining([2, 3, 4]));
    expect(lines).not.toContain(1);
    for (const e of batch.errors!.data!) expect(e.message).toMatch(/^line \d+/);
    expect(posts(sim.ledger)).toBe(0);
  });

  it("answers 401 to a wrong token and 404 for another token's batch and files", async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const alice = client(server);
    const bob = client(server, TOKEN_B);
    const input = writeLines(ws.path('in.jsonl'), [chatLine('a', 'one')]);
    const file = await alice.files.create({ file: createReadStream(input), purpose: 'batch' });
    const created = await alice.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await expect(client(server, 'tok-wrong').batches.list()).rejects.toMatchObject({
      status: 401,
      error: { type: 'authentication_error' },
    });
    await expect(bob.batches.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.files.content(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(bob.batches.cancel(created.id)).rejects.toMatchObject({ status: 404 });
    expect((await bob.batches.list()).data).toEqual([]);
    expect(await batchEnd(server, created.id)).toBe('completed');
    const done = await alice.batches.retrieve(created.id);
    await expect(bob.files.content(done.output_file_id!)).rejects.toMatchObject({ status: 404 });
    // Bob's own batch is refused Alice's file as input.
    await expect(
      bob.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toMatchObject({ status: 404 });
  });
});
