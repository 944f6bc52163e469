// The ledger, in-process and on GET /__sim/ledger: every request, task and charge per account, the
// duplicate counter, and never an API key.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { get, KEY, simClock, OTHER_KEY, post, submit } from '../helpers/sim-http.js';

const clock = simClock();
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    clock,
    taskSeconds: 10,
    accounts: [
      { key: KEY, balanceUsd: 10 },
      { key: OTHER_KEY, balanceUsd: 5 },
    ],
  });
  await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'twice' });
  await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'twice' });
  await submit(sim.baseUrl, OTHER_KEY, { model: 'video-mini', prompt: 'once', resolution: '480p' });
  await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: '' }); // rejected: not counted
  await post(sim.baseUrl, '/chat/completions', OTHER_KEY, {
    model: 'chat-small',
    messages: [
      { role: 'system', content: 's' },
      { role: 'user', content: 'ask' },
    ],
  });
  await post(sim.baseUrl, '/responses', OTHER_KEY, { model: 'chat-small', input: 'ask' });
  await get(sim.baseUrl, '/models', 'sk-wrong');
  clock.tick(10_000);
});
afterAll(() => sim.close());

describe('in-process ledger', () => {
  test('requests: one record per request, accounts by name, POST bodies parsed', () => {
    const requests = sim.ledger.requests;
    expect(requests).toHaveLength(7);
    expect(requests[0]).toEqual({
      at: expect.any(Number),
      account: 'acct-1',
      method: 'POST',
      path: '/v1/video/generations',
      status: 200,
      body: { model: 'video-fast', prompt: 'twice' },
      outcome: 'answered',
    });
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200, 400, 200, 200, 401]);
    expect(requests.at(-1)).toMatchObject({ account: null, method: 'GET', path: '/v1/models' });
    expect(requests.at(-1)).not.toHaveProperty('body');
  });

  test('tasks and balances per account', () => {
    expect(sim.ledger.tasks.map((t) => [t.account, t.prompt, t.state])).toEqual([
      ['acct-1', 'twice', 'SUCCESS'],
      ['acct-1', 'twice', 'SUCCESS'],
      ['acct-2', 'once', 'SUCCESS'],
    ]);
    const balances = sim.ledger.balances;
    expect(Object.keys(balances)).toEqual(['acct-1', 'acct-2']);
    expect(balances['acct-1']).toBeCloseTo(10 - 2 * 0.41477832, 9);
    expect(balances['acct-1']).toBeCloseTo(10 - sim.ledger.chargesTotal('acct-1'), 12);
    expect(balances['acct-2']).toBeCloseTo(5 - sim.ledger.chargesTotal('acct-2'), 12);
    expect(sim.account(OTHER_KEY)).toEqual({ name: 'acct-2', balanceUsd: balances['acct-2'] });
  });

  test('charges: reserve and settle per task, one per chat or responses call', () => {
    const kinds = sim.ledger.charges.map((c) => `${c.account}:${c.kind}`);
    expect(kinds.filter((k) => k === 'acct-1:reserve')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'acct-1:settle')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'acct-2:chat')).toHaveLength(2);
  });

  test('submissionsByPrompt counts accepted submissions: video prompts and the last user text', () => {
    expect(sim.ledger.submissionsByPrompt()).toEqual({ twice: 2, once: 1, ask: 2 });
  });
});

describe('GET /__sim/ledger', () => {
  test('the same ledger as JSON, with no auth, and no key anywhere', async () => {
    const res = await fetch(`${sim.origin}/__sim/ledger`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const json = JSON.parse(text);
    expect(json.tasks).toHaveLength(3);
    expect(json.requests).toHaveLength(7);
    expect(json.balances['acct-2']).toBeCloseTo(sim.ledger.balances['acct-2']!, 12);
    expect(json.submissionsByPrompt).toEqual({ twice: 2, once: 1, ask: 2 });
    for (const key of [KEY, OTHER_KEY, 'sk-wrong']) expect(text).not.toContain(key);
  });

  test('admin reads are not recorded as requests; unknown admin paths are 404', async () => {
    const before = sim.ledger.requests.length;
    await fetch(`${sim.origin}/__sim/ledger`);
    expect((await fetch(`${sim.origin}/__sim/nothing`)).status).toBe(404);
    expect(sim.ledger.requests.length).toBe(before);
  });
});
