// completion_window: a batch whose window passes ends `expired`; what finished is in the output file,
// the rest in the error file as batch_expired, and nothing is sent after the window.
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { batchEnd, chatLine, client, filesOf, heldGateway, startServe, submitBatch } from '../../helpers/serve.js';

describe.skipIf(!BUILT)('gbatch serve: expiry', () => {
  it('expires a batch at the end of its window: finished requests in the output, the rest batch_expired', async () => {
    const held = heldGateway();
    const sim = await startSim({ clock: held.clock, faults: { latencyMs: 1 } });
    const ws = workspace('gbatch-serve-');
    // A minute of the window lasts 2 s here.
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--concurrency', '2'],
      env: { GBATCH_SERVE_TEST_MINUTE_S: '2' },
    });
    const openai = client(server);
    const ids = Array.from({ length: 6 }, (_, i) => `e${i}`);
    const created = await submitBatch(
      openai,
      ws.path('in.jsonl'),
      ids.map((id) => chatLine(id, `expire ${id}`)),
      { window: '1m' },
    );
    await held.arrived(2);
    const ended = await server.stderrMatching(new RegExp(`${created.id}: the completion window ended`));
    expect(ended).not.toMatch(/journal|next run|gbatch (run|resolve)|`gbatch|--drain|\bitem/);
    held.release();
    expect(await batchEnd(server, created.id)).toBe('expired');
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.expired_at).toBeGreaterThan(0);
    const { output, errors } = await filesOf(openai, batch);
    expect(output.map((l) => l.custom_id)).toHaveLength(2);
    expect(errors).toHaveLength(4);
    for (const line of errors) expect(line.error).toMatchObject({ code: 'batch_expired' });
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids);
    expect(posts(sim.ledger)).toBe(2);
    expect(held.count()).toBe(2);
  });
});
