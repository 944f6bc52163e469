// `gbatch serve --journal postgres://…`: the catalog and every batch's job in one database; a batch run
// there, the server SIGKILLed mid-batch and restarted, the batch carried on without a request sent twice,
// and `gbatch status` reading the batch as a job.
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { duplicates, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import {
  batchEnd,
  chatLine,
  client,
  filesOf,
  heldChatBatch,
  heldGateway,
  restartAfterSigkill,
  startServe,
  submitBatch,
} from '../../helpers/serve.js';

const pg = usePgSchema('gbatch_serve');

describe.skipIf(!BUILT || !pgAvailable())('gbatch serve on PostgreSQL', () => {
  it('runs a batch in the database and carries it on after SIGKILL', async () => {
    const ws = workspace('gbatch-serve-');
    const ids = Array.from({ length: 6 }, (_, i) => `g${i}`);
    const first = await heldChatBatch(ws, ids, 'pg', {
      args: ['--journal', pg.url()],
      // A killed server's lease on the job runs out in a second here, not 30.
      env: { GBATCH_LOCK_STALE_MS: '1000' },
    });
    const { held, sim, created } = first;
    const server = await restartAfterSigkill(first.server, first.options);
    held.release();
    expect(await batchEnd(server, created.id)).toBe('completed');
    const openai = client(server);
    const batch = await openai.batches.retrieve(created.id);
    const { output, errors } = await filesOf(openai, batch);
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids);
    expect(errors.map((l) => (l.error as { code: string }).code)).toEqual(['uncertain', 'uncertain']);
    expect(duplicates(sim.ledger)).toEqual({});
    expect(held.count()).toBe(ids.length);
    // The catalog on the database pages as on SQLite: newest first, `after` the last id seen.
    const later = await submitBatch(openai, ws.path('later.jsonl'), [chatLine('later', 'one more')]);
    const page = await openai.batches.list({ limit: 1 });
    expect(page.data.map((b) => b.id)).toEqual([later.id]);
    expect(page.has_more).toBe(true);
    const rest = await openai.batches.list({ limit: 5, after: later.id });
    expect(rest.data.map((b) => b.id)).toEqual([created.id]);
    expect(rest.has_more).toBe(false);
    const status = await runCli(['status', created.id, '--journal', pg.url(), '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ counts: { downloaded: 4, uncertain: 2 } });
  });
});

describe.skipIf(!BUILT || !pgAvailable())('two servers on one PostgreSQL journal', () => {
  it('finish one batch together: both send at once, nothing twice, every request in exactly one file', async () => {
    const held = heldGateway();
    const sim = await startSim({ clock: held.clock, faults: { latencyMs: 1 } });
    const ws = workspace('gbatch-serve-');
    // One data folder (a shared disk) and one database; each server sends at most two at a time.
    const options = {
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--concurrency', '2', '--journal', pg.url()],
    };
    const first = await startServe(options);
    const second = await startServe(options);
    const ids = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const created = await submitBatch(
      client(first),
      ws.path('in.jsonl'),
      ids.map((id) => chatLine(id, `shared ${id}`)),
    );
    // Four requests at the gateway at once: more than either server may have in flight.
    await held.arrived(4);
    held.release();
    // One of the two ends the batch (the catalog lets only one write its final status).
    const end = new RegExp(`${created.id}: completed:`);
    await Promise.race([first.stderrMatching(end), second.stderrMatching(end)]);
    expect([first.stderr(), second.stderr()].filter((log) => end.test(log))).toHaveLength(1);
    const openai = client(second);
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.status).toBe('completed');
    const { output, errors } = await filesOf(openai, batch);
    expect(errors).toEqual([]);
    expect(output.map((l) => l.custom_id).sort()).toEqual([...ids].sort());
    expect(duplicates(sim.ledger)).toEqual({});
    expect(held.count()).toBe(ids.length);
  });
});
