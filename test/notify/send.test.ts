// The sender against a real local server: a 4xx is not asked again, a 429 waits its Retry-After, a
// dead port is retried until the total bound, and nothing takes longer than that bound.
import { expect, test } from 'vitest';
import { DEFAULT_SEND_POLICY } from '../../src/notify/policy.js';
import { notifyAgent, postNotification } from '../../src/notify/send.js';
import { startHook } from './webhook-server.js';

const policy = { ...DEFAULT_SEND_POLICY, attemptTimeoutMs: 500, totalMs: 3_000, baseDelayMs: 50, maxDelayMs: 2_000 };

async function send(url: string) {
  const agent = notifyAgent(policy);
  try {
    const started = Date.now();
    const outcome = await postNotification(url, JSON.stringify({ text: 'hi', job: 'j' }), policy, { dispatcher: agent, now: () => Date.now(), random: () => 1 });
    return { ...outcome, ms: Date.now() - started };
  } finally {
    await agent.close();
  }
}

test('a 404 is given up at once; a 429 is tried again after its Retry-After', async () => {
  const refusing = await startHook([404]);
  expect(await send(refusing.url)).toMatchObject({ ok: false, attempts: 1, reason: 'HTTP 404, not retried' });
  expect(refusing.received).toHaveLength(1);

  const limited = await startHook([429]);
  const outcome = await send(limited.url);
  expect(outcome).toMatchObject({ ok: true, attempts: 2 });
  expect(limited.received[1]!.at - limited.received[0]!.at).toBeGreaterThanOrEqual(900);
  expect(limited.received[0]!.body).toEqual({ text: 'hi', job: 'j' });
});

test('a refused connection is tried again with backoff until the total bound, then given up', async () => {
  const outcome = await send('http://127.0.0.1:9/hook');
  expect(outcome.ok).toBe(false);
  expect(outcome.attempts).toBeGreaterThan(2);
  expect(outcome.reason).toMatch(/ECONNREFUSED|after \d+ attempt/);
  expect(outcome.ms).toBeLessThan(policy.totalMs + 500);
});
