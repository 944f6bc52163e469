import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayHttpError, GatewayTransportError } from '../../src/gateway/errors.js';
import { API_KEY, makeClient } from '../helpers/client-fixture.js';
import { closedPort, json, startServer, type Handler } from '../helpers/test-server.js';

const VIDEO = { model: 'video-fast', prompt: 'a red fox in snow', resolution: '720p', duration: 5 };
const CHAT = { model: 'chat-small', messages: [{ role: 'user', content: 'hi' }] };
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(handler: Handler, overrides: Parameters<typeof makeClient>[1] = {}) {
  const server = await startServer(handler);
  const { client, clock } = makeClient(server.baseUrl, overrides);
  cleanups.push(
    () => client.close(),
    () => server.close(),
  ); // server first: it ends stalled requests
  return { server, client, clock };
}

describe('send: definite answers', () => {
  it('video 200 with an id is accepted, sent with JSON content type and the bearer key', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 200, { id: 'task_abc', task_id: 'task_abc', status: 'queued' }),
    );
    const outcome = await client.send('video', VIDEO, 1);
    expect(outcome).toEqual({
      kind: 'accepted',
      taskId: 'task_abc',
      body: { id: 'task_abc', task_id: 'task_abc', status: 'queued' },
    });
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', url: '/v1/video/generations' });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(request!.body)).toEqual(VIDEO);
  });

  it('chat and responses 200 are completed, with the request id', async () => {
    const { server, client } = await setup((req, res) =>
      json(
        res,
        200,
        { id: req.url === '/v1/responses' ? 'resp_1' : 'chatcmpl_1', usage: { total_tokens: 12 } },
        { 'x-request-id': 'req-77' },
      ),
    );
    expect(await client.send('chat', CHAT, 1)).toEqual({
      kind: 'completed',
      status: 200,
      body: { id: 'chatcmpl_1', usage: { total_tokens: 12 } },
      requestId: 'req-77',
    });
    const responses = await client.send('responses', { model: 'chat-small', input: 'hi' }, 1);
    expect(responses).toMatchObject({ kind: 'completed', body: { id: 'resp_1' } });
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/chat/completions', '/v1/responses']);
  });

  it('reuses keep-alive connections for consecutive requests', async () => {
    const ports: number[] = [];
    const { client } = await setup((req, res) => {
      ports.push(req.socket.remotePort!);
      json(res, 200, { id: 'task_k' });
    });
    for (let i = 0; i < 6; i++) await client.send('video', VIDEO, 1);
    expect(ports).toHaveLength(6);
    expect(new Set(ports).size).toBeLessThanOrEqual(2); // undici may open a second socket while the first settles
  });

  it('400 with param is rejected with the envelope fields', async () => {
    const { client } = await setup((_req, res) =>
      json(
        res,
        400,
        {
          error: {
            message: 'prompt must not be blank',
            type: 'invalid_request_error',
            param: 'prompt',
            code: 'blank_prompt',
          },
        },
        { 'x-request-id': 'r-1' },
      ),
    );
    const outcome = await client.send('video', { ...VIDEO, prompt: ' ' }, 1);
    expect(outcome.kind).toBe('rejected');
    const error = (outcome as { error: GatewayHttpError }).error;
    expect(error).toBeInstanceOf(GatewayHttpError);
    expect(error).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      param: 'prompt',
      code: 'blank_prompt',
      requestId: 'r-1',
      gatewayEnvelope: true,
    });
    expect(error.message).toBe('400 prompt must not be blank');
  });

  it('402 is insufficient_balance, with the task envelope code', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 402, { code: 'insufficient_user_quota', message: 'balance too low' }),
    );
    const outcome = await client.send('video', VIDEO, 1);
    expect(outcome.kind).toBe('insufficient_balance');
    expect((outcome as { error: GatewayHttpError }).error).toMatchObject({
      status: 402,
      code: 'insufficient_user_quota',
      message: '402 balance too low',
    });
  });

  it('500 with the gateway envelope is retry, with a backoff delay for the attempt', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 500, { error: { message: 'relay error', type: 'new_api_error' } }),
    );
    const outcome = await client.send('chat', CHAT, 3);
    // attempt 3, base 1000 ms: ceiling 4000 ms, fixed jitter 0.5
    expect(outcome).toMatchObject({ kind: 'retry', delayMs: 2000, error: { status: 500, gatewayEnvelope: true } });
    expect(client.stats()).toMatchObject({ requests: 1, retries: 1, rateLimited: 0 });
  });

  it('502 html page from a proxy is ambiguous', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1>nginx</body></html>');
    });
    const outcome = await client.send('video', VIDEO, 1);
    expect(outcome.kind).toBe('ambiguous');
    const error = (outcome as { error: GatewayHttpError }).error;
    expect(error).toMatchObject({ status: 502, gatewayEnvelope: false });
    expect(error.message).toMatch(/^502 .*text\/html.*502 Bad Gateway nginx/);
  });

  it('504 is ambiguous even with an envelope', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 504, { error: { message: 'timeout', type: 'new_api_error' } }),
    );
    expect(await client.send('video', VIDEO, 1)).toMatchObject({ kind: 'ambiguous', error: { status: 504 } });
  });

  it('200 without a task id is ambiguous for video', async () => {
    const { client } = await setup((_req, res) => json(res, 200, { status: 'queued' }));
    expect(await client.send('video', VIDEO, 1)).toMatchObject({ kind: 'ambiguous', error: { status: 200 } });
  });
});

describe('send: 429 pauses the whole account', () => {
  it('no request of any kind leaves before Retry-After has passed', async () => {
    let calls = 0;
    const { server, client, clock } = await setup((req, res) => {
      calls++;
      if (calls === 1)
        return json(res, 429, { error: { message: 'slow down', type: 'rate_limit_error' } }, { 'retry-after': '7' });
      if (req.url!.endsWith('/content')) {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 4 });
        return res.end('mp4!');
      }
      if (req.method === 'GET') return json(res, 200, { code: 'success', data: { task_id: 't1', status: 'QUEUED' } });
      return json(res, 200, { id: 'task_after_pause' });
    });
    const start = clock.now();
    const first = await client.send('video', VIDEO, 1);
    expect(first).toMatchObject({ kind: 'retry', delayMs: 7000, error: { status: 429, retryAfterMs: 7000 } });
    expect(client.pausedUntil()).toBe(start + 7000);

    const second = client.send('video', VIDEO, 2);
    const poll = client.getTask('t1');
    const dir = await mkdtemp(join(tmpdir(), 'gbatch-pause-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const download = client.download('t1', join(dir, 'v.mp4'));
    await clock.waitForSleepers(3);
    await clock.advance(6999);
    expect(clock.pendingSleepers()).toBe(3);
    expect(server.requests).toHaveLength(1);

    await clock.advance(1);
    expect(await second).toEqual({ kind: 'accepted', taskId: 'task_after_pause', body: { id: 'task_after_pause' } });
    expect((await poll).phase).toBe('pending');
    expect((await download).bytes).toBe(4);
    expect(server.requests).toHaveLength(4);
    expect(client.pausedUntil()).toBe(0);
    expect(client.stats()).toMatchObject({ requests: 4, rateLimited: 1 });
  });

  it('without Retry-After the pause is the backoff delay', async () => {
    const { client, clock } = await setup((_req, res) =>
      json(res, 429, { error: { message: 'slow', type: 'rate_limit_error' } }),
    );
    const outcome = await client.send('chat', CHAT, 2);
    expect(outcome).toMatchObject({ kind: 'retry', delayMs: 1000 });
    expect(client.pausedUntil()).toBe(clock.now() + 1000);
  });
});

describe('send: no answer', () => {
  it('socket destroyed after the request arrived is ambiguous, mayHaveReached', async () => {
    const { server, client } = await setup((req) => req.socket.destroy());
    const outcome = await client.send('video', VIDEO, 1);
    expect(outcome.kind).toBe('ambiguous');
    const error = (outcome as { error: GatewayTransportError }).error;
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ code: 'GBATCH_RESET', mayHaveReached: true });
    expect(server.requests).toHaveLength(1);
  });

  it('headers timeout is ambiguous, mayHaveReached', async () => {
    const { client } = await setup(() => undefined, { headersTimeoutMs: 100 });
    const outcome = await client.send('video', VIDEO, 1);
    expect(outcome).toMatchObject({ kind: 'ambiguous', error: { code: 'GBATCH_TIMEOUT', mayHaveReached: true } });
  });

  it('a body cut short after a 200 is ambiguous', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"id":"task_');
      setImmediate(() => res.socket?.destroy());
    });
    expect(await client.send('video', VIDEO, 1)).toMatchObject({ kind: 'ambiguous', error: { mayHaveReached: true } });
  });

  it('connection refused is retry: nothing left the process', async () => {
    const port = await closedPort();
    const { client } = makeClient(`http://127.0.0.1:${port}/v1`);
    cleanups.push(() => client.close());
    const outcome = await client.send('video', VIDEO, 1);
    expect(outcome.kind).toBe('retry');
    const error = (outcome as { error: GatewayTransportError }).error;
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ code: 'GBATCH_CONNECT', mayHaveReached: false });
    expect((outcome as { delayMs: number }).delayMs).toBe(500);
  });
});

describe('send: abort', () => {
  it('aborted before sending throws GBATCH_ABORTED and sends nothing', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, { id: 'x' }));
    const controller = new AbortController();
    controller.abort();
    await expect(client.send('video', VIDEO, 1, { signal: controller.signal })).rejects.toMatchObject({
      name: 'GatewayTransportError',
      code: 'GBATCH_ABORTED',
      mayHaveReached: false,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('aborted while the account is paused throws GBATCH_ABORTED and sends nothing more', async () => {
    const { server, client, clock } = await setup((_req, res) =>
      json(res, 429, { error: { message: 'slow', type: 'rate_limit_error' } }, { 'retry-after': '30' }),
    );
    await client.send('video', VIDEO, 1);
    const controller = new AbortController();
    const waiting = client.send('video', VIDEO, 2, { signal: controller.signal });
    await clock.waitForSleepers(1);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'GBATCH_ABORTED', mayHaveReached: false });
    expect(server.requests).toHaveLength(1);
  });

  it('aborted while queued behind a busy connection throws GBATCH_ABORTED: it never left', async () => {
    const { server, client } = await setup(() => undefined, { connections: 1 });
    void client.send('video', VIDEO, 1).catch(() => undefined);
    await server.received(1);
    const controller = new AbortController();
    const queued = client.send('video', VIDEO, 2, { signal: controller.signal });
    setImmediate(() => controller.abort());
    await expect(queued).rejects.toMatchObject({ code: 'GBATCH_ABORTED', mayHaveReached: false });
    expect(server.requests).toHaveLength(1);
  });

  it('aborted after sending is ambiguous', async () => {
    const controller = new AbortController();
    const { client } = await setup(() => controller.abort());
    expect(await client.send('video', VIDEO, 1, { signal: controller.signal })).toMatchObject({
      kind: 'ambiguous',
      error: { code: 'GBATCH_ABORTED', mayHaveReached: true },
    });
  });
});
