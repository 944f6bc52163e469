// Every run leaves a record of how it ended in the journal's runs table (what `status` shows).
import { describe, expect, it } from 'vitest';
import { createGatewayClient, type GatewayClient } from '../../src/gateway/client.js';
import { type RunRecord } from '../../src/journal/index.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { runInProcess } from '../helpers/run.js';
import { KEY, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import { openSyncJournal, lastRun } from '../helpers/journal-raw.js';

function lastRunOf(state: string): RunRecord | undefined {
  const journal = openSyncJournal(state, { readonly: true });
  try {
    return lastRun(journal);
  } finally {
    journal.close();
  }
}

describe('the run record', () => {
  it('a finished run: exit 0, no stop reason; a run stopped by the deadline: its reason and line', async () => {
    const sim = await startSim();
    const ws = workspace();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('a', 'one')]);
    const stopped = await runInProcess({ sim, ws, manifests: [manifest], settings: { deadlineAt: Date.now() } });
    expect(stopped.exitCode).toBe(75);
    expect(lastRunOf(ws.state)).toMatchObject({ exitCode: 75, stopReason: 'deadline', pid: process.pid });
    expect(lastRunOf(ws.state)!.message).toMatch(
      /^deadline reached \(.+\): nothing was sent after it; no request had to be cut/,
    );

    const done = await runInProcess({ sim, ws, manifests: [manifest] });
    expect(done.exitCode).toBe(0);
    const record = lastRunOf(ws.state)!;
    expect(record).toMatchObject({ exitCode: 0, stopReason: null, message: null });
    expect(record.endedAt).toBeGreaterThanOrEqual(record.startedAt);
  });

  it('a run that ends in a bug records exit 70 with the error, without the key', async () => {
    const sim = await startSim();
    const ws = workspace();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('a', 'one')]);
    const real = createGatewayClient({ baseUrl: sim.baseUrl, apiKey: KEY });
    const gateway: GatewayClient = {
      ...real,
      origin: real.origin,
      send: async () => {
        throw new TypeError(`broken with ${KEY}`);
      },
    };
    try {
      await expect(runInProcess({ sim, ws, manifests: [manifest], extra: { gateway } })).rejects.toThrow('broken');
    } finally {
      await real.close();
    }
    const record = lastRunOf(ws.state)!;
    expect(record).toMatchObject({ exitCode: 70, stopReason: 'internal-error' });
    expect(record.message).toContain('TypeError: broken with [redacted]');
    expect(record.message).not.toContain(KEY);
  });
});
