// Shared set-up for client tests: a manual clock, a fixed jitter, and a driver that advances time
// whenever the client is waiting, until the operation under test settles.

import { ManualClock } from '../../src/core/clock.js';
import { createGatewayClient, type GatewayClient, type GatewayClientOptions } from '../../src/gateway/client.js';

export const API_KEY = 'sk-test-SECRET-7f3a9c2e51';

export function makeClient(
  baseUrl: string,
  overrides: Partial<GatewayClientOptions> = {},
): { client: GatewayClient; clock: ManualClock } {
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

/**
 * Advances the clock each time the code under test sleeps, until `operation` settles: by `step`, or to the
 * end of the earliest sleep ('next-sleeper', time moving exactly as far as the code waits). Returns its result.
 */
export async function drive<T>(
  clock: ManualClock,
  operation: Promise<T>,
  step: number | 'next-sleeper' = 60_000,
): Promise<T> {
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
    if (!settled)
      await clock.advance(step === 'next-sleeper' ? (clock.nextWakeAt() ?? clock.now()) - clock.now() : step);
  }
  return operation;
}
