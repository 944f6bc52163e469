// The server's edges: uploads over the cap or of another purpose are refused and leave nothing behind; a
// deleted file is gone; without tokens it refuses to start unless --no-auth, which binds loopback only.
import { readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { chatLine, client, startServe, submitBatch, writeLines } from '../../helpers/serve.js';
import { createReadStream } from 'node:fs';

describe.skipIf(!BUILT)('gbatch serve: uploads, deletion and start-up', () => {
  it('refuses an upload over --max-file-bytes (413) or of another purpose (400), keeping nothing', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl, args: ['--max-file-bytes', '200'] });
    const openai = client(server);
    const big = ws.path('big.jsonl');
    writeFileSync(big, `${JSON.stringify(chatLine('x', 'y'.repeat(400)))}\n`);
    await expect(openai.files.create({ file: createReadStream(big), purpose: 'batch' })).rejects.toMatchObject({
      status: 413,
    });
    const small = writeLines(ws.path('small.jsonl'), [chatLine('a', 'b')]);
    // A purpose OpenAI's reference does not have.
    await expect(
      openai.files.create({ file: createReadStream(small), purpose: 'pictures' as 'batch' }),
    ).rejects.toMatchObject({
      status: 400,
      error: { param: 'purpose' },
    });
    expect(readdirSync(ws.path('data', 'files'))).toEqual([]);
    expect((await openai.files.list()).data).toEqual([]);
    const kept = await openai.files.create({ file: createReadStream(small), purpose: 'batch' });
    expect(readdirSync(ws.path('data', 'files'))).toEqual([`${kept.id}.jsonl`]);
    expect(await openai.files.delete(kept.id)).toMatchObject({ id: kept.id, deleted: true });
    await expect(openai.files.retrieve(kept.id)).rejects.toMatchObject({ status: 404 });
    expect(readdirSync(ws.path('data', 'files'))).toEqual([]);
  });

  it('refuses to start without tokens (exit 2) unless --no-auth, which listens on loopback only', async () => {
    const ws = workspace('gbatch-serve-');
    const env = { GATEWAY_BASE_URL: 'http://127.0.0.1:9/v1', GATEWAY_API_KEY: 'k' };
    const none = await runCli(['serve', '--port', '0', '--data', ws.path('d')], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/GBATCH_SERVE_TOKENS/);
    const open = await runCli(['serve', '--port', '0', '--data', ws.path('d'), '--no-auth', '--host', '0.0.0.0'], {
      env,
    });
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/loopback only/);
    const sim = await startSim();
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--no-auth'],
      env: { GBATCH_SERVE_TOKENS: undefined },
    });
    const batch = await submitBatch(client(server, 'anything'), ws.path('in.jsonl'), [chatLine('n', 'no auth')]);
    expect(batch.status).toBe('validating');
  });
});
