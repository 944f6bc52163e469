// Every status of spec 7 the simulator produces, in the envelope the spec gives each endpoint:
// the general envelope for text endpoints, models, content and every 401/429; the task envelope for
// video endpoints 4 and 5.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { get, KEY, simClock, OTHER_KEY, poll, post, submit } from '../helpers/sim-http.js';

const clock = simClock();
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    clock,
    taskSeconds: 10,
    accounts: [
      { key: KEY, balanceUsd: 10 },
      { key: OTHER_KEY, balanceUsd: 10 },
      { key: 'sk-test-poor', balanceUsd: 0.1 },
      { key: 'sk-test-revoked', balanceUsd: 10, revoked: true },
      { key: 'sk-test-chat-only', balanceUsd: 10, models: ['chat-small'] },
      { key: 'sk-test-limited', balanceUsd: 10, rateLimitPerMinute: 1 },
    ],
  });
});
afterAll(() => sim.close());

function expectGeneral(json: any, fields: Record<string, unknown> = {}): void {
  expect(Object.keys(json)).toEqual(['error']);
  expect(json.error).toMatchObject({ message: expect.any(String), type: expect.any(String), ...fields });
  expect(json.error).toHaveProperty('param');
  expect(json.error).toHaveProperty('code');
}

function expectTask(json: any, code: string): void {
  expect(json).toMatchObject({ code, message: expect.any(String) });
  expect(json).not.toHaveProperty('error');
}

const chat = { model: 'chat-small', messages: [{ role: 'user', content: 'hi' }] };

describe('400', () => {
  test.each([
    ['missing model', { messages: chat.messages }, 'model'],
    ['temperature out of range', { ...chat, temperature: 2.5 }, 'temperature'],
    ['bad message role', { ...chat, messages: [{ role: 'bot', content: 'x' }] }, 'messages[0].role'],
    ['unknown model', { ...chat, model: 'chat-huge' }, 'model'],
    ['a video model on chat', { ...chat, model: 'video-fast' }, 'model'],
  ])('chat: %s -> param %s', async (_name, body, param) => {
    const res = await post(sim.baseUrl, '/chat/completions', KEY, body);
    expect(res.status).toBe(400);
    expectGeneral(await res.json(), { type: 'invalid_request_error', param });
  });

  test('chat and responses: invalid JSON', async () => {
    for (const path of ['/chat/completions', '/responses']) {
      const res = await post(sim.baseUrl, path, KEY, '{"model": ');
      expect(res.status).toBe(400);
      expectGeneral(await res.json(), { code: 'invalid_json' });
    }
  });

  test.each([
    ['missing model', { prompt: 'p' }, 'model'],
    ['missing prompt', { model: 'video-fast' }, 'prompt'],
    ['blank prompt', { model: 'video-fast', prompt: ' \n ' }, 'prompt'],
    ['duration above 3600', { model: 'video-fast', prompt: 'p', duration: 3601 }, 'duration'],
    ['duration below 0', { model: 'video-fast', prompt: 'p', duration: '-5' }, 'duration'],
    ['duration not numeric', { model: 'video-fast', prompt: 'p', duration: 'five' }, 'duration'],
    ['seconds alias out of range', { model: 'video-fast', prompt: 'p', seconds: '9999' }, 'duration'],
    ['resolution the tier lacks', { model: 'video-fast', prompt: 'p', resolution: '4k' }, 'resolution'],
    ['unrecognised resolution', { model: 'video-pro', prompt: 'p', resolution: '8k' }, 'resolution'],
    ['480p on video-pro-2.5', { model: 'video-pro-2.5', prompt: 'p', resolution: '480p' }, 'resolution'],
    ['unknown model', { model: 'video-ultra', prompt: 'p' }, 'model'],
    ['a chat model on video', { model: 'chat-small', prompt: 'p' }, 'model'],
  ])('video submit: %s -> task envelope, data.param %s', async (_name, body, param) => {
    const { status, json } = await submit(sim.baseUrl, KEY, body);
    expect(status).toBe(400);
    expect(json.data).toEqual({ param });
    expect(typeof json.code).toBe('string');
    expectTask(json, json.code);
  });

  test('video submit: invalid JSON and a body that is not an object', async () => {
    const res = await post(sim.baseUrl, '/video/generations', KEY, 'not json');
    expect(res.status).toBe(400);
    expectTask(await res.json(), 'invalid_json');
    const arr = await submit(sim.baseUrl, KEY, [1, 2] as unknown as Record<string, unknown>);
    expect(arr.status).toBe(400);
    expectTask(arr.json, 'invalid_request');
  });

  test('content before the task is ready: general envelope', async () => {
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'early' });
    const res = await get(sim.baseUrl, `/videos/${task.id}/content`, KEY);
    expect(res.status).toBe(400);
    expectGeneral(await res.json(), { code: 'task_not_ready' });
  });

  test('a rejected request keeps nothing', async () => {
    const before = sim.ledger.chargesTotal('acct-1');
    const tasks = sim.ledger.tasks.length;
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'p', duration: 99999 });
    await post(sim.baseUrl, '/chat/completions', KEY, { ...chat, top_p: 9 });
    expect(sim.ledger.chargesTotal('acct-1')).toBe(before);
    expect(sim.ledger.tasks.length).toBe(tasks);
  });
});

describe('401 (general envelope on every endpoint)', () => {
  const paths: Array<[string, 'GET' | 'POST', string, unknown?]> = [
    ['models', 'GET', '/models'],
    ['chat', 'POST', '/chat/completions', chat],
    ['responses', 'POST', '/responses', { model: 'chat-small', input: 'x' }],
    ['submit', 'POST', '/video/generations', { model: 'video-fast', prompt: 'p' }],
    ['poll', 'GET', '/video/generations/task_x'],
    ['content', 'GET', '/videos/task_x/content'],
  ];
  test.each(paths)('%s: missing, invalid and revoked keys', async (_name, method, path, body) => {
    for (const key of [undefined, 'sk-nope', 'sk-test-revoked']) {
      const res = method === 'GET' ? await get(sim.baseUrl, path, key) : await post(sim.baseUrl, path, key, body);
      expect(res.status).toBe(401);
      const text = await res.text();
      expectGeneral(JSON.parse(text), { code: 'invalid_api_key' });
      if (key) expect(text).not.toContain(key);
    }
  });
});

describe('402', () => {
  test('video: the balance cannot cover the reservation; nothing kept', async () => {
    const { status, json } = await submit(sim.baseUrl, 'sk-test-poor', { model: 'video-fast', prompt: 'too dear' });
    expect(status).toBe(402);
    expectTask(json, 'insufficient_quota');
    expect(sim.account('sk-test-poor').balanceUsd).toBe(0.1);
    expect(sim.ledger.tasks.filter((t) => t.account === 'acct-3')).toEqual([]);
  });

  test('chat: the balance cannot cover the call (general envelope)', async () => {
    const res = await post(sim.baseUrl, '/chat/completions', 'sk-test-poor', {
      ...chat,
      model: 'chat-large',
      messages: [{ role: 'user', content: 'x'.repeat(200_000) }],
    });
    expect(res.status).toBe(402);
    expectGeneral(await res.json(), { code: 'insufficient_quota' });
  });
});

describe('403: a model the account is not given', () => {
  test('chat: general envelope; video: task envelope', async () => {
    const res = await post(sim.baseUrl, '/chat/completions', 'sk-test-chat-only', { ...chat, model: 'chat-large' });
    expect(res.status).toBe(403);
    expectGeneral(await res.json(), { param: 'model', code: 'model_not_allowed' });
    const video = await submit(sim.baseUrl, 'sk-test-chat-only', { model: 'video-fast', prompt: 'p' });
    expect(video.status).toBe(403);
    expectTask(video.json, 'model_not_allowed');
  });
});

describe('404', () => {
  test("another account's task: poll (task envelope) and content (general envelope)", async () => {
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'mine' });
    clock.tick(10_000);
    const polled = await poll(sim.baseUrl, OTHER_KEY, task.id);
    expect(polled.status).toBe(404);
    expectTask(polled.json, 'task_not_found');
    const content = await get(sim.baseUrl, `/videos/${task.id}/content`, OTHER_KEY);
    expect(content.status).toBe(404);
    expectGeneral(await content.json(), { code: 'task_not_found' });
    expect((await poll(sim.baseUrl, KEY, task.id)).status).toBe(200);
  });

  test('an unknown task', async () => {
    const polled = await poll(sim.baseUrl, KEY, 'task_doesnotexist');
    expect(polled.status).toBe(404);
    expectTask(polled.json, 'task_not_found');
    expect((await get(sim.baseUrl, '/videos/task_doesnotexist/content', KEY)).status).toBe(404);
  });

  test('an unknown path', async () => {
    for (const path of ['/nope', '/models/extra', '/video/generations/a/b']) {
      const res = await get(sim.baseUrl, path, KEY);
      expect(res.status).toBe(404);
      expectGeneral(await res.json());
    }
  });
});

describe('429', () => {
  test('general envelope with an integer Retry-After on video endpoints too', async () => {
    clock.tick(60_000 - (clock.now() % 60_000) + 45_000); // 45 s into a fresh window
    const first = await submit(sim.baseUrl, 'sk-test-limited', { model: 'video-fast', prompt: 'one' });
    expect(first.status).toBe(200);
    const res = await post(sim.baseUrl, '/video/generations', 'sk-test-limited', {
      model: 'video-fast',
      prompt: 'two',
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('15');
    expectGeneral(await res.json(), { code: 'rate_limit_exceeded' });
    expect(sim.ledger.submissionsByPrompt()['two']).toBeUndefined();
  });
});

describe('500 / 502 / 503 with the envelope, 504 / 502 from an intermediary', () => {
  test('envelope flavor: chat gets the general envelope, submit and poll the task envelope', async () => {
    sim.faults.errorRate = 1;
    sim.faults.errorFlavor = 'envelope';
    try {
      const seen = new Set<number>();
      for (let i = 0; i < 30; i++) {
        const res = await post(sim.baseUrl, '/chat/completions', KEY, chat);
        seen.add(res.status);
        expectGeneral(await res.json(), { type: 'gateway_api_error' });
      }
      expect([...seen].sort()).toEqual([500, 502, 503]);
      const { status, json } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'p' });
      expect([500, 502, 503]).toContain(status);
      expectTask(json, json.code);
      const polled = await poll(sim.baseUrl, KEY, 'task_whatever');
      expect([500, 502, 503]).toContain(polled.status);
      expectTask(polled.json, polled.json.code);
    } finally {
      sim.faults.errorRate = 0;
    }
  });

  test('intermediary flavor: an HTML page, not the envelope', async () => {
    sim.faults.errorRates = { models: 1 };
    sim.faults.errorFlavor = 'intermediary';
    try {
      const seen = new Set<number>();
      for (let i = 0; i < 20; i++) {
        const res = await get(sim.baseUrl, '/models', KEY);
        seen.add(res.status);
        expect(res.headers.get('content-type')).toBe('text/html');
        expect(await res.text()).toMatch(/<html>.*Gateway/s);
      }
      expect([...seen].sort()).toEqual([502, 504]);
      expect((await post(sim.baseUrl, '/chat/completions', KEY, chat)).status).toBe(200);
    } finally {
      sim.faults.errorRates = {};
      sim.faults.errorFlavor = 'envelope';
    }
  });
});
