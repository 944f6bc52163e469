// An upload that meets a full disk is the client's error answer (507, OpenAI's envelope), never the
// server's end: the part file goes, and every live batch carries on.
import { createReadStream, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { batchEnd, chatLine, client, startServe, submitBatch } from '../../helpers/serve.js';
import { startSim } from '../../helpers/sim.js';
import { CAN_MOUNT, mountTmpfs } from '../../helpers/tmpfs.js';
import { workspace } from '../../helpers/workspace.js';

describe.skipIf(!BUILT || !CAN_MOUNT)('gbatch serve on a full disk', () => {
  it('answers a 30 MB upload to a 24 MB --data with 507, removes its part file, and finishes the live batch', async () => {
    const sim = await startSim({ faults: { latencyMs: 50 } });
    const ws = workspace('gbatch-serve-');
    const data = mountTmpfs('24m').dir;
    const server = await startServe({
      data,
      gateway: sim.baseUrl,
      args: ['--max-file-bytes', String(64 * 1024 * 1024)],
    });
    const openai = client(server);
    const batch = await submitBatch(
      openai,
      ws.path('live.jsonl'),
      Array.from({ length: 20 }, (_, i) => chatLine(`r${i}`, `live row ${i}`)),
    );

    const big = ws.path('big.jsonl');
    const line = `${JSON.stringify(chatLine('x', 'y'.repeat(1000)))}\n`;
    writeFileSync(big, line.repeat(Math.ceil((30 * 1024 * 1024) / line.length)));
    // One attempt: the SDK retries a 5xx, and a file stream is read once.
    const refused = await openai.files
      .create({ file: createReadStream(big), purpose: 'batch' }, { maxRetries: 0 })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toMatchObject({
      status: 507,
      error: { type: 'server_error', code: 'insufficient_storage', param: null },
    });
    expect(readdirSync(join(data, 'files')).filter((name) => name.endsWith('.part'))).toEqual([]);

    expect(await batchEnd(server, batch.id)).toBe('completed');
    expect((await openai.batches.retrieve(batch.id)).request_counts).toMatchObject({ total: 20, completed: 20 });
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toMatch(/unhandled|internal error/i);
  }, 60_000);
});
