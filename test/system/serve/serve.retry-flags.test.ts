// serve takes --retry-failed and --retry-backoff as run does, one policy for every batch: --retry-failed 0
// sends a failed video once, --retry-failed 1 with a short --retry-backoff twice.
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { batchEnd, client, filesOf, startServe, submitBatch, videoLine } from '../../helpers/serve.js';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

describe.skipIf(!BUILT)('gbatch serve: --retry-failed and --retry-backoff', () => {
  it.each([
    [0, 1],
    [1, 2],
  ])('--retry-failed %i: a video whose task always fails is sent %i time(s)', async (retries, sent) => {
    const sim = await startSim({ taskSeconds: 0.05, faults: { failRate: 1 } });
    const ws = workspace('gbatch-serve-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--retry-failed', String(retries), '--retry-backoff', '0.05'],
    });
    const openai = client(server);
    const created = await submitBatch(openai, ws.path('in.jsonl'), [videoLine('v', 'a clip that fails')], {
      endpoint: '/v1/video/generations',
    });
    expect(await batchEnd(server, created.id)).toBe('completed');
    expect(sim.ledger.tasks.filter((t) => t.prompt === 'a clip that fails')).toHaveLength(sent);
    const { errors } = await filesOf(openai, await openai.batches.retrieve(created.id));
    expect(errors.map((line) => line.custom_id)).toEqual(['v']);
  });
});
