// A run's start gate (`gbatch serve` asks its catalog whether the batch is still live): asked once the run
// is a runner of the job, before any row changes; a reason stops the run there, with nothing sent, no row
// moved and the job free for the next run.
import { describe, expect, it } from 'vitest';
import { openQueries } from '../../src/journal/index.js';
import { StartRefused } from '../../src/pipeline/start-refused.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { runInProcess } from '../helpers/run.js';
import { startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';

async function journalView(
  state: string,
): Promise<{ pending: number; liveRunners: number; lastRunStart: number | undefined }> {
  const journal = await openQueries(state, { job: 'job' });
  try {
    return {
      pending: (await journal.counts()).pending,
      liveRunners: (await journal.runners()).filter((r) => r.liveness.alive).length,
      lastRunStart: (await journal.lastRun())?.startedAt,
    };
  } finally {
    await journal.close();
  }
}

describe('the start gate', () => {
  it('is asked once the run has joined the job; a reason stops it before a row moves or a request leaves', async () => {
    const sim = await startSim();
    const ws = workspace();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('a', 'one'), chatRow('b', 'two')]);
    // The rows are in the journal, pending, as a run that ingested them left them.
    expect((await runInProcess({ sim, ws, manifests: [manifest], extra: { ingestOnly: true } })).exitCode).toBe(0);

    const seen: Array<Awaited<ReturnType<typeof journalView>>> = [];
    const refused = runInProcess({
      sim,
      ws,
      manifests: [manifest],
      extra: {
        startGate: async () => {
          seen.push(await journalView(ws.state));
          return 'the batch is completed';
        },
      },
    });
    await expect(refused).rejects.toThrow(StartRefused);
    await expect(refused).rejects.toThrow('the run did not start: the batch is completed');
    // Asked once, with this run among the job's runners.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.liveRunners).toBe(1);
    expect(sim.ledger.requests).toEqual([]);
    // No row moved, the runner left, and no run was recorded (the last one is still the ingest's).
    expect(seen[0]!.lastRunStart).toBeDefined();
    expect(await journalView(ws.state)).toEqual({ pending: 2, liveRunners: 0, lastRunStart: seen[0]!.lastRunStart });

    // The job is free: the next run, let through, sends both rows.
    const next = await runInProcess({ sim, ws, manifests: [manifest], extra: { startGate: async () => undefined } });
    expect(next.exitCode).toBe(0);
    expect(sim.ledger.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });
});
