// A programming error while sending (not a network failure) stops the run instead of repeating per row.
import { describe, expect, it } from 'vitest';
import { createGatewayClient, type GatewayClient } from '../../src/gateway/client.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { runInProcess } from '../helpers/run.js';
import { KEY, posts, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import { openSyncJournal } from '../helpers/journal-raw.js';

describe('a bug in the send path', () => {
  it('leaves that one item uncertain, sends nothing more, and fails the run loudly', async () => {
    const sim = await startSim();
    const ws = workspace();
    const manifest = writeJsonl(
      ws.path('rows.jsonl'),
      Array.from({ length: 20 }, (_, i) => chatRow(`r${i}`, `hello ${i}`)),
    );
    const real = createGatewayClient({ baseUrl: sim.baseUrl, apiKey: KEY });
    let calls = 0;
    const gateway: GatewayClient = {
      ...real,
      origin: real.origin,
      send: async () => {
        calls++;
        throw new TypeError('dispatcher.request is not a function');
      },
    };
    try {
      await expect(
        runInProcess({ sim, ws, manifests: [manifest], settings: { concurrency: 1 }, extra: { gateway } }),
      ).rejects.toThrow('dispatcher.request is not a function');
    } finally {
      await real.close();
    }
    expect(calls).toBe(1);
    expect(posts(sim.ledger)).toBe(0);
    const journal = openSyncJournal(ws.state, { readonly: true });
    const counts = journal.counts();
    journal.close();
    expect(counts.uncertain).toBe(1);
    expect(counts.pending).toBe(19);
  });
});
