// Issue 13: a cancellation lands between a row's 429/503 (back to pending) and its next attempt. The
// runner has not read the job's cancellation yet (its check is a second away): the journal refuses the
// intent, the request never leaves, and the row is cancelled with the rest.
import { expect, it } from 'vitest';
import { createGatewayClient, type GatewayClient, type SendOutcome } from '../../src/gateway/client.js';
import { GatewayHttpError } from '../../src/gateway/errors.js';
import { readJournal } from '../helpers/journal-read.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { runInProcess } from '../helpers/run.js';
import { KEY, posts, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import { openSqliteStore } from '../helpers/journal-raw.js';

it('a row sent back to pending by a 503 is not sent again once the job is cancelled, whatever the runner has read', async () => {
  const sim = await startSim();
  const ws = workspace();
  const manifest = writeJsonl(
    ws.path('rows.jsonl'),
    Array.from({ length: 5 }, (_, i) => chatRow(`r${i}`, `hello ${i}`)),
  );
  const real = createGatewayClient({ baseUrl: sim.baseUrl, apiKey: KEY });
  const sent: string[] = [];
  const gateway: GatewayClient = {
    ...real,
    origin: real.origin,
    send: async (_kind, request): Promise<SendOutcome> => {
      sent.push(JSON.stringify(request));
      // The operator's `gbatch cancel`, from another connection, while this request is on the wire.
      const operator = openSqliteStore(ws.state);
      try {
        const cancel = (await operator.setJobCancel('mid-flight'))!;
        await operator.decideAndApply(async (reader) => ({
          changes: (await reader.list(['pending'])).map((item) => ({
            id: item.id,
            event: 'cancel' as const,
            expect: 'pending' as const,
            patch: { lastError: { code: 'cancelled', message: cancel.reason } },
          })),
          result: undefined,
        }));
      } finally {
        await operator.close();
      }
      return {
        kind: 'retry',
        error: new GatewayHttpError({ status: 503, message: 'busy', gatewayEnvelope: true }),
        delayMs: 0,
      };
    },
  };
  try {
    const result = await runInProcess({
      sim,
      ws,
      manifests: [manifest],
      settings: { concurrency: 1 },
      extra: { gateway },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stopReason).toBe('cancelled');
  } finally {
    await real.close();
  }
  expect(sent).toHaveLength(1);
  expect(posts(sim.ledger)).toBe(0);
  const { byId, counts } = readJournal(ws.state);
  expect(counts).toMatchObject({ cancelled: 5, pending: 0, submitting: 0 });
  expect(byId.get('r0')!.lastError).toEqual({
    code: 'cancelled',
    message: 'cancelled by the operator (gbatch cancel): mid-flight; never sent',
  });
  expect(byId.get('r0')!.reservedUsd).toBe(0);
});
