// A batch as OpenAI's reference has it: its `model`, `output_expires_after` setting its files' expires_at, and
// the limit of 50,000 requests per input file.
import { createReadStream, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { batchEnd, chatLine, client, startServe, writeLines } from '../../helpers/serve.js';

describe('gbatch serve: batches as OpenAI describes them', () => {
  it("shows the requests' model, and dates its files by output_expires_after", async () => {
    const sim = await startSim();
    const ws = workspace();
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const input = writeLines(ws.path('in.jsonl'), [chatLine('a', 'one'), chatLine('b', 'two')]);
    const file = await openai.files.create({ file: createReadStream(input), purpose: 'batch' });
    const params = { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' } as const;
    for (const [output_expires_after, param] of [
      [{ anchor: 'created_at', seconds: 60 }, 'output_expires_after.seconds'],
      [{ anchor: 'last_active_at', seconds: 7200 }, 'output_expires_after.anchor'],
    ] as const)
      await expect(
        openai.batches.create({ ...params, output_expires_after: output_expires_after as never }),
      ).rejects.toMatchObject({ status: 400, error: { param } });
    const created = await openai.batches.create({
      ...params,
      output_expires_after: { anchor: 'created_at', seconds: 7200 },
    });
    expect(await batchEnd(server, created.id)).toBe('completed');
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.model).toBe('chat-small');
    const output = await openai.files.retrieve(batch.output_file_id!);
    expect(output.expires_at).toBe(output.created_at + 7200);
    expect((await openai.files.list({ purpose: 'batch_output' as 'batch' })).data[0]).toMatchObject({
      id: output.id,
      expires_at: output.created_at + 7200,
    });
  });

  it('fails a batch of more than 50,000 requests, naming the limit, and sends nothing', async () => {
    const sim = await startSim();
    const ws = workspace();
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const input = ws.path('many.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 50_001; i++) lines.push(JSON.stringify(chatLine(`r${i}`, 'hi')));
    writeFileSync(input, `${lines.join('\n')}\n`);
    const file = await openai.files.create({ file: createReadStream(input), purpose: 'batch' });
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await server.stderrMatching(new RegExp(`${created.id}: input failed validation`));
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.status).toBe('failed');
    expect(batch.errors!.data).toEqual([
      {
        code: 'too_many_requests',
        message: 'the input file holds 50001 requests: a batch takes at most 50000',
        param: null,
        line: 0,
      },
    ]);
    expect(posts(sim.ledger)).toBe(0);
  });
});
