// Two servers on one PostgreSQL journal share the account: --budget holds for all their batches together,
// and the gateway's 402 to one server's batch stops the submissions of both servers.
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { HOSTILE_KEY, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { duplicates, KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { batchEnd, chatLine, client, filesOf, startServe, submitBatch, videoLine } from '../../helpers/serve.js';
import type OpenAI from 'openai';
import type { ServeChild } from '../../helpers/serve.js';

const budgetPg = usePgSchema('gbatch_serve_budget');
const balancePg = usePgSchema('gbatch_serve_balance');

/** Waits for the batch's final status, logged by whichever server wrote it. */
async function endOf(servers: ServeChild[], batchId: string): Promise<string> {
  return Promise.race(servers.map((server) => batchEnd(server, batchId)));
}

describe.skipIf(!BUILT || !pgAvailable())('two servers on one PostgreSQL journal share the account', () => {
  it('hold all their batches together to --budget: the gateway bills no more', async () => {
    // Every video is billed at 1080p, the dearest: what each row may cost is what it costs.
    const gw = await startHostileGateway({ finalResolution: () => '1080p' });
    onTestFinished(() => gw.close());
    const ws = workspace('gbatch-serve-');
    // video-mini 2 s at 1080p bills about $0.186: $0.30 holds one row, not one per server.
    const budget = 0.3;
    const options = {
      data: ws.path('data'),
      gateway: gw.baseUrl,
      args: ['--journal', budgetPg.url(), '--budget', String(budget)],
      env: { GATEWAY_API_KEY: HOSTILE_KEY },
    };
    const servers = [await startServe(options), await startServe(options)];
    // Each server is handed a batch at the same instant: each starts its own batch's run at once.
    const created = await Promise.all(
      servers.map((server, n) =>
        submitBatch(
          client(server),
          ws.path(`in${n}.jsonl`),
          [0, 1, 2].map((i) => videoLine(`s${n}v${i}`, `shared budget ${n} ${i}`)),
          { endpoint: '/v1/video/generations' },
        ),
      ),
    );
    const openai = client(servers[0]!);
    let delivered = 0;
    for (const batch of created) {
      expect(await endOf(servers, batch.id)).toBe('completed');
      const { output, errors } = await filesOf(openai, await openai.batches.retrieve(batch.id));
      expect(output.length + errors.length).toBe(3);
      for (const line of errors) expect(line.error).toMatchObject({ code: 'budget_exceeded' });
      delivered += output.length;
    }
    expect(delivered).toBeGreaterThan(0);
    expect(gw.billedUsd()).toBeLessThanOrEqual(budget);
    expect(gw.count('POST', '/v1/video')).toBe(delivered);
  });

  it("stop every batch of both servers at the gateway's first 402", async () => {
    // chat-small, one completion token, prompts of one length: every call costs the same, so once one is
    // refused for the balance, all are.
    const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 0.00004 }] });
    const ws = workspace('gbatch-serve-');
    const options = {
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--journal', balancePg.url(), '--concurrency', '1'],
    };
    const servers = [await startServe(options), await startServe(options)];
    const ids = (n: number) => Array.from({ length: 40 }, (_, i) => `b${n}-${String(i).padStart(2, '0')}`);
    const created: OpenAI.Batch[] = await Promise.all(
      servers.map((server, n) =>
        submitBatch(
          client(server),
          ws.path(`in${n}.jsonl`),
          ids(n).map((id) => chatLine(id, `balance ${id}`, { max_tokens: 1 })),
        ),
      ),
    );
    const openai = client(servers[1]!);
    for (const [n, batch] of created.entries()) {
      expect(await endOf(servers, batch.id)).toBe('completed');
      const { output, errors } = await filesOf(openai, await openai.batches.retrieve(batch.id));
      expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids(n));
      for (const line of errors)
        expect(line.error).toMatchObject({ code: 'budget_exceeded', message: expect.stringMatching(/402/) });
    }
    const submissions = sim.ledger.requests.filter((r) => r.method === 'POST');
    const first402 = submissions.findIndex((r) => r.status === 402);
    expect(first402).toBeGreaterThan(0);
    // After the first 402 only the other server's one request already on its way may reach the gateway.
    expect(submissions.slice(first402 + 1).length).toBeLessThanOrEqual(1);
    expect(duplicates(sim.ledger)).toEqual({});
  });
});
