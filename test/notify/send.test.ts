// The sender against a real local server, its waits on a manual clock: a 4xx is not asked again, a 429
// waits its Retry-After, a dead port is retried with backoff until the total bound, and no wait goes past it.
import { expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DEFAULT_SEND_POLICY } from '../../src/notify/policy.js';
import { notifyAgent, postNotification } from '../../src/notify/send.js';
import { drive } from '../helpers/client-fixture.js';
import { startHook } from '../helpers/webhook-server.js';

const policy = { ...DEFAULT_SEND_POLICY, attemptTimeoutMs: 500, totalMs: 3_000, baseDelayMs: 50, maxDelayMs: 2_000 };

async function send(url: string) {
  const agent = notifyAgent(policy);
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const waits: number[] = [];
  const sleep = clock.sleep.bind(clock);
  clock.sleep = (ms, signal) => {
    waits.push(ms);
    return sleep(ms, signal);
  };
  try {
    const started = clock.now();
    const sending = postNotification(url, JSON.stringify({ text: 'hi', job: 'j' }), policy, {
      dispatcher: agent,
      clock,
      random: () => 1,
    });
    const outcome = await drive(clock, sending, 'next-sleeper');
    return { ...outcome, waits, elapsedMs: clock.now() - started };
  } finally {
    await agent.close();
  }
}

test('a 404 is given up at once; a 429 is tried again after its Retry-After', async () => {
  const refusing = await startHook([404]);
  expect(await send(refusing.url)).toMatchObject({
    ok: false,
    attempts: 1,
    reason: 'HTTP 404, not retried',
    waits: [],
  });
  expect(refusing.received).toHaveLength(1);

  const limited = await startHook([429]);
  const outcome = await send(limited.url);
  expect(outcome).toMatchObject({ ok: true, attempts: 2, waits: [1_000] }); // Retry-After: 1, above the 50 ms backoff
  expect(limited.received).toHaveLength(2);
  expect(limited.received[0]!.body).toEqual({ text: 'hi', job: 'j' });
});

test('a refused connection is tried again with backoff until the total bound, then given up', async () => {
  const outcome = await send('http://127.0.0.1:9/hook');
  expect(outcome.ok).toBe(false);
  expect(outcome.reason).toMatch(/^ECONNREFUSED after \d+ attempt\(s\)$/);
  // random() = 1: each wait is the full backoff, doubling from 50 ms and capped at 2 s.
  expect(outcome.waits).toEqual([50, 100, 200, 400, 800]);
  expect(outcome.attempts).toBe(6); // after 1,550 ms of waits, the next (1,600 ms) would end past the 3 s bound
  expect(outcome.elapsedMs).toBeLessThanOrEqual(policy.totalMs);
});
