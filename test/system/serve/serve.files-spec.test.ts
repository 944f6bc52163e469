// The Files API as OpenAI's reference has it: every upload purpose is stored (only a `batch` file feeds a
// batch), `expires_after` sets a file's expires_at, and the list honours purpose, order, after and the
// reference's limit (10,000 by default and at most).
import { createReadStream, writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { chatLine, client, startServe, TOKEN_A, writeLines } from '../../helpers/serve.js';

async function serveOnSim() {
  const ws = workspace();
  const sim = await startSim();
  const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
  return { ws, sim, server, openai: client(server) };
}

describe('gbatch serve: files as OpenAI describes them', () => {
  it("stores every purpose of the reference, and refuses a batch on a file that is not 'batch'", async () => {
    const { ws, server, openai } = await serveOnSim();
    const input = writeLines(ws.path('in.jsonl'), [chatLine('a', 'hi')]);
    for (const purpose of ['assistants', 'batch', 'fine-tune', 'vision', 'user_data'] as const) {
      const file = await openai.files.create({ file: createReadStream(input), purpose });
      expect(file.purpose).toBe(purpose);
      expect((await openai.files.retrieve(file.id)).purpose).toBe(purpose);
    }
    // OpenAI's published file object does not list `evals` among its purposes: this one answer is read unchecked.
    const unchecked = new OpenAI({ baseURL: server.url, apiKey: TOKEN_A, maxRetries: 0 });
    expect((await unchecked.files.create({ file: createReadStream(input), purpose: 'evals' })).purpose).toBe('evals');
    await expect(
      openai.files.create({ file: createReadStream(input), purpose: 'pictures' as 'vision' }),
    ).rejects.toMatchObject({ status: 400, error: { param: 'purpose' } });
    const data = await openai.files.create({ file: createReadStream(input), purpose: 'user_data' });
    await expect(
      openai.batches.create({ input_file_id: data.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toMatchObject({ status: 400, error: { param: 'input_file_id' } });
  });

  it('sets expires_at from expires_after, and refuses an anchor or a number of seconds outside the reference', async () => {
    const { ws, openai } = await serveOnSim();
    const input = writeLines(ws.path('in.jsonl'), [chatLine('a', 'hi')]);
    const file = await openai.files.create({
      file: createReadStream(input),
      purpose: 'batch',
      expires_after: { anchor: 'created_at', seconds: 3600 },
    });
    expect(file.expires_at).toBe(file.created_at + 3600);
    expect((await openai.files.retrieve(file.id)).expires_at).toBe(file.created_at + 3600);
    const plain = await openai.files.create({ file: createReadStream(input), purpose: 'batch' });
    expect(plain).not.toHaveProperty('expires_at');
    for (const [seconds, anchor, param] of [
      [3599, 'created_at', 'expires_after.seconds'],
      [2_592_001, 'created_at', 'expires_after.seconds'],
      [3600, 'last_active_at', 'expires_after.anchor'],
    ] as const)
      await expect(
        openai.files.create({
          file: createReadStream(input),
          purpose: 'batch',
          expires_after: { anchor: anchor as 'created_at', seconds },
        }),
      ).rejects.toMatchObject({ status: 400, error: { param } });
  });

  it('lists by purpose and order, pages with after, gives 10,000 by default, and empty pages string ids', async () => {
    const { ws, openai } = await serveOnSim();
    const input = ws.path('in.jsonl');
    writeFileSync(input, `${JSON.stringify(chatLine('a', 'hi'))}\n`);
    const made: string[] = [];
    for (let i = 0; i < 22; i++)
      made.push((await openai.files.create({ file: createReadStream(input), purpose: i < 2 ? 'vision' : 'batch' })).id);
    // Above the old default of 20: one page holds them all.
    const all = await openai.files.list();
    expect(all.data.map((f) => f.id).sort()).toEqual([...made].sort());
    expect(all.has_more).toBe(false);
    const vision = await openai.files.list({ purpose: 'vision' });
    expect(vision.data.map((f) => f.id).sort()).toEqual(made.slice(0, 2).sort());
    const asc = (await openai.files.list({ order: 'asc' })).data.map((f) => f.id);
    expect(asc).toEqual(all.data.map((f) => f.id).reverse());
    const page = await openai.files.list({ order: 'asc', limit: 5, after: asc[4] });
    expect(page.data.map((f) => f.id)).toEqual(asc.slice(5, 10));
    expect(page.has_more).toBe(true);
    const none = (await (await openai.files.list({ purpose: 'fine-tune' }).asResponse()).json()) as unknown;
    expect(none).toEqual({ object: 'list', data: [], first_id: '', last_id: '', has_more: false });
    await expect(openai.files.list({ order: 'newest' as 'asc' })).rejects.toMatchObject({
      status: 400,
      error: { param: 'order' },
    });
    await expect(openai.files.list({ limit: 10_001 })).rejects.toMatchObject({
      status: 400,
      error: { param: 'limit' },
    });
  });
});
