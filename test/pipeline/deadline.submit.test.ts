// The deadline is checked before every send, first attempts and retries: at the deadline nothing new
// leaves, whatever the timers are doing.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { createGatewayClient, type GatewayClient, type SendOutcome } from '../../src/gateway/client.js';
import { GatewayHttpError } from '../../src/gateway/errors.js';
import { readJournal } from '../helpers/journal-read.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { runInProcess } from '../helpers/run.js';
import { KEY, posts, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';

/** A clock whose timers never fire unless their wait is zero: an event loop too busy to run them. */
class StalledClock implements Clock {
  constructor(public at: number) {}
  now(): number {
    return this.at;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ms <= 0) return Promise.resolve();
    return new Promise((_resolve, reject) =>
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
    );
  }
}

describe('--deadline and the submission lane', () => {
  it('a deadline already reached (0m) sends nothing at all: exit 75, every row pending', async () => {
    const sim = await startSim();
    const ws = workspace();
    const manifest = writeJsonl(
      ws.path('rows.jsonl'),
      Array.from({ length: 12 }, (_, i) => chatRow(`r${i}`, `hello ${i}`)),
    );
    const result = await runInProcess({
      sim,
      ws,
      manifests: [manifest],
      settings: { concurrency: 4, deadlineAt: Date.now() },
    });
    expect(result.exitCode).toBe(75);
    expect(result.stopReason).toBe('deadline');
    expect(sim.ledger.requests).toEqual([]);
    expect(readJournal(ws.state).counts.pending).toBe(12);
  });

  it('a retry that falls due at the deadline is not sent, even before the deadline timer fires', async () => {
    const sim = await startSim();
    const ws = workspace();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('r0', 'hello')]);
    const clock = new StalledClock(1_000);
    const real = createGatewayClient({ baseUrl: sim.baseUrl, apiKey: KEY });
    let sends = 0;
    const gateway: GatewayClient = {
      ...real,
      origin: real.origin,
      send: async (): Promise<SendOutcome> => {
        sends++;
        clock.at = 2_000; // the gateway took its time: the deadline has passed when the 503 comes back
        const error = new GatewayHttpError({ status: 503, message: 'busy', gatewayEnvelope: true });
        return { kind: 'retry', error, delayMs: 0 };
      },
    };
    try {
      const result = await runInProcess({
        sim,
        ws,
        manifests: [manifest],
        clock,
        settings: { deadlineAt: 1_500 },
        extra: { gateway },
      });
      expect(result.exitCode).toBe(75);
      expect(result.stopReason).toBe('deadline');
    } finally {
      await real.close();
    }
    expect(sends).toBe(1);
    expect(posts(sim.ledger)).toBe(0);
    expect(readJournal(ws.state).byId.get('r0')!.state).toBe('pending');
  });
});
