// Shared set-up for client tests: a manual clock, a fixed jitter, and a driver that advances time
// whenever the client is waiting, until the operation under test settles.

import { ManualClock } from '../../../src/core/clock.js';
import { createGatewayClient, type GatewayClient, type GatewayClientOptions } from '../../../src/gateway/client.js';

export const API_KEY = 'sk-test-SECRET-7f3a9c2e51';

export function makeClient(baseUrl: string, overrides: Partial<GatewayClientOptions> = {}): { client: GatewayClient; clock: ManualClock } {
  const clock = new ManualClock(Date.parse('2025-01-01T00:00:00Z'));
  const client = createGatewayClient({
    baseUrl,
    apiKey: API_KEY,
    clock,
    random: () => 0.5,
    backoff: { baseMs: 1000, maxMs: 8000, maxAttempts: 4 },
    ...overrides,
  });
  return { client, clock };
}

/** Advances the clock each time the client sleeps, until `operation` settles. Returns its result. */
export async function drive<T>(clock: ManualClock, operation: Promise<T>, stepMs = 60_000): Promise<T> {
  let settled = false;
  const done = operation.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  while (!settled) {
    await Promise.race([done, clock.waitForSleepers(1)]);
    if (!settled) await clock.advance(stepMs);
  }
  return operation;
}
