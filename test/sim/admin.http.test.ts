// `gbatch sim --admin`: the faults read and changed over HTTP while the simulator runs, with one of its
// keys, from loopback; off unless asked for. The change is seen by the next request: a task submitted
// after it fails or succeeds as the new fault rate says.
import { afterEach, describe, expect, test } from 'vitest';
import { isLoopbackAddress } from '../../src/sim/admin.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { auth, get, KEY, poll, simClock, submit } from '../helpers/sim-http.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions = {}) {
  const clock = simClock();
  const logged: string[] = [];
  sim = await startSimulator({
    accounts: [{ key: KEY, balanceUsd: 100 }],
    taskSeconds: 10,
    clock,
    log: (line) => logged.push(line),
    ...options,
  });
  return { sim, clock, logged };
}

const change = (origin: string, body: unknown, key: string | undefined = KEY) =>
  fetch(`${origin}/__sim/faults`, {
    method: 'POST',
    headers: key === undefined ? {} : auth(key),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const VIDEO = { model: 'video-mini', prompt: 'a harbour at dusk', resolution: '480p', duration: 2 };

describe('the admin endpoint', () => {
  test('is not there unless asked for', async () => {
    const { sim } = await start({ faults: { failRate: 1 } });
    expect((await get(sim.origin, '/__sim/faults', KEY)).status).toBe(404);
    expect((await change(sim.origin, { 'fail-rate': 0 })).status).toBe(404);
    expect(sim.faults.failRate).toBe(1);
  });

  test("changes the faults the next request meets: a bad night's failures, then none", async () => {
    const { sim, clock, logged } = await start({ admin: true, faults: { failRate: 1, errorRate: 0.5 } });
    const before = await get(sim.origin, '/__sim/faults', KEY);
    expect(before.status).toBe(200);
    expect(((await before.json()) as { faults: Record<string, unknown> }).faults).toEqual({
      'latency-ms': 0,
      'latency-jitter-ms': 0,
      'error-rate': 0.5,
      'error-flavor': 'envelope',
      'accept-then-drop-rate': 0,
      'truncate-rate': 0,
      'fail-rate': 1,
      'final-resolution': null,
      'final-resolution-rate': 0,
    });
    await change(sim.origin, { 'error-rate': 0 });
    const bad = await submit(sim.baseUrl, KEY, VIDEO);
    expect(bad.status).toBe(200);

    const good = await change(sim.origin, { 'fail-rate': 0, 'final-resolution': '1080p' });
    expect(good.status).toBe(200);
    expect(((await good.json()) as { faults: Record<string, unknown> }).faults).toMatchObject({
      'fail-rate': 0,
      'error-rate': 0,
      'final-resolution': '1080p',
    });
    const fine = await submit(sim.baseUrl, KEY, VIDEO);
    await clock.advance(11_000);
    expect((await poll(sim.baseUrl, KEY, bad.json.id)).json.data.status).toBe('FAILURE');
    expect((await poll(sim.baseUrl, KEY, fine.json.id)).json.data.status).toBe('SUCCESS');
    expect(sim.ledger.tasks.map((t) => [t.state, t.finalResolution])).toEqual([
      ['FAILURE', '480p'],
      ['SUCCESS', '1080p'],
    ]);
    expect(logged.filter((l) => l.startsWith('faults changed'))).toHaveLength(2);

    const cleared = await change(sim.origin, { 'final-resolution': null });
    expect(((await cleared.json()) as { faults: Record<string, unknown> }).faults['final-resolution']).toBeNull();
  });

  test('refuses a request without a key of the simulator, and a change it cannot make, changing nothing', async () => {
    const { sim } = await start({ admin: true, faults: { failRate: 0.25 } });
    expect((await get(sim.origin, '/__sim/faults')).status).toBe(401);
    expect((await change(sim.origin, { 'fail-rate': 0 }, 'sk-not-ours')).status).toBe(401);
    const refusals: Array<[unknown, RegExp]> = [
      [{ 'fail-rate': 2 }, /failRate to be a number from 0 to 1, got 2/],
      [{ 'fail-rate': '0' }, /'fail-rate' to be a number/],
      [{ 'error-flavor': 'loud' }, /errorFlavor to be envelope, intermediary or mixed/],
      [{ 'rate-limit': 5 }, /unknown fault 'rate-limit'; known: latency-ms/],
      ['{not json', /expected a JSON object of fault flags/],
      [[1], /expected a JSON object of fault flags/],
    ];
    for (const [body, reason] of refusals) {
      const res = await change(sim.origin, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(reason);
    }
    const put = await fetch(`${sim.origin}/__sim/faults`, { method: 'PUT', headers: auth(KEY) });
    expect(put.status).toBe(405);
    expect(sim.faults.failRate).toBe(0.25);
    // Admin requests are not the gateway's traffic: the ledger saw none of them.
    expect(sim.ledger.requests).toEqual([]);
  });
});

test('loopback addresses, and only they', () => {
  for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
    expect(isLoopbackAddress(address)).toBe(true);
  for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '192.168.1.127', '::', '0.0.0.0', undefined])
    expect(isLoopbackAddress(address)).toBe(false);
});
