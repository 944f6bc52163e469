// A server SIGKILLed mid-batch, twice, with requests on the wire: restarted on the same data, it carries
// the batch on to its end. From the gateway's ledger: no request sent twice; every request in exactly one
// file; those whose outcome the kill made unknown are `uncertain`, never resent.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { duplicates, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import {
  batchEnd,
  chatLine,
  client,
  filesOf,
  heldGateway,
  startServe,
  submitBatch,
  videoLine,
} from '../../helpers/serve.js';

describe.skipIf(!BUILT)('gbatch serve: restart', () => {
  it('carries a batch on after SIGKILL: nothing sent twice, every request in exactly one file', async () => {
    const held = heldGateway();
    const sim = await startSim({ clock: held.clock, faults: { latencyMs: 1 } });
    const ws = workspace('gbatch-serve-');
    const options = { data: ws.path('data'), gateway: sim.baseUrl, args: ['--concurrency', '2'] };
    const ids = Array.from({ length: 10 }, (_, i) => `k${i}`);
    let server = await startServe(options);
    const created = await submitBatch(
      client(server),
      ws.path('in.jsonl'),
      ids.map((id) => chatLine(id, `restart ${id}`)),
    );
    // Killed twice, each time with two requests held at the gateway.
    for (const arrived of [2, 4]) {
      await held.arrived(arrived);
      server.child.kill('SIGKILL');
      expect((await server.exited).signal).toBe('SIGKILL');
      server = await startServe(options);
    }
    held.release();
    expect(await batchEnd(server, created.id)).toBe('completed');
    const openai = client(server);
    const batch = await openai.batches.retrieve(created.id);
    const { output, errors } = await filesOf(openai, batch);
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids);
    expect(duplicates(sim.ledger)).toEqual({});
    // The six answered; the four cut by a kill reached the gateway once each and were never sent again.
    expect(posts(sim.ledger)).toBe(6);
    expect(held.count()).toBe(ids.length);
    // The four on the wire at a kill: their outcome unknown to the journal, each left for an operator.
    expect(errors.map((l) => (l.error as { code: string }).code)).toEqual(Array(4).fill('uncertain'));
    expect(output).toHaveLength(6);
    expect(batch.request_counts).toEqual({ total: 10, completed: 6, failed: 4 });
  });
});

/** The kill instants of a seed: counts of gateway requests (submissions, polls, downloads) after which to kill. */
function killPoints(seed: number): [number, number] {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const first = 1 + Math.floor(next() * 8);
  return [first, first + 1 + Math.floor(next() * 8)];
}

describe.skipIf(!BUILT)('gbatch serve: SIGKILL at seeded instants of a video batch', () => {
  it.each([7, 19, 42])('seed %i: videos polled on, none submitted twice, spend within budget_usd', async (seed) => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const options = { data: ws.path('data'), gateway: sim.baseUrl, args: ['--concurrency', '2'] };
    const ids = Array.from({ length: 6 }, (_, i) => `w${i}`);
    const budget = 0.8;
    let server = await startServe(options);
    const created = await submitBatch(
      client(server),
      ws.path('in.jsonl'),
      ids.map((id) => videoLine(id, `seeded ${seed} ${id}`)),
      { endpoint: '/v1/video/generations', metadata: { budget_usd: String(budget) } },
    );
    for (const point of killPoints(seed)) {
      await sim.ledger.reached((l) => l.requests.length >= point);
      server.child.kill('SIGKILL');
      await server.exited;
      server = await startServe(options);
    }
    expect(await batchEnd(server, created.id)).toBe('completed');
    const openai = client(server);
    const batch = await openai.batches.retrieve(created.id);
    const { output, errors } = await filesOf(openai, batch);
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids);
    expect(duplicates(sim.ledger)).toEqual({});
    expect(sim.ledger.chargesTotal('acct-1')).toBeLessThanOrEqual(budget);
    for (const line of errors) expect((line.error as { code: string }).code).toMatch(/^(uncertain|budget_exceeded)$/);
    for (const line of output) {
      const body = (line.response as { body: { file_id: string; sha256: string } }).body;
      const bytes = Buffer.from(await (await openai.files.content(body.file_id)).arrayBuffer());
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(body.sha256);
    }
  });
});
