import { afterEach, describe, expect, it } from 'vitest';
import { GatewayHttpError, GatewayTransportError } from '../../src/gateway/errors.js';
import { drive, makeClient } from '../helpers/client-fixture.js';
import { json, startServer, type Handler } from '../helpers/test-server.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(handler: Handler) {
  const server = await startServer(handler);
  const { client, clock } = makeClient(server.baseUrl);
  cleanups.push(
    () => client.close(),
    () => server.close(),
  );
  return { server, client, clock };
}

const SUCCESS = {
  code: 'success',
  data: {
    task_id: 'task_1',
    status: 'SUCCESS',
    progress: '100%',
    result_url: 'http://127.0.0.1:1/v.mp4',
    data: { usage: { total_tokens: 108900 }, resolution: '720p' },
  },
};

describe('getTask', () => {
  it('retries 503 with backoff on the clock, then returns the normalised status', async () => {
    const { server, client, clock } = await setup((_req, res, i) =>
      i < 2 ? json(res, 503, { code: 'no_upstream', message: 'no upstream available' }) : json(res, 200, SUCCESS),
    );
    const polling = client.getTask('task_1');
    await clock.waitForSleepers(1);
    expect(server.requests).toHaveLength(1);
    await clock.advance(499); // attempt 1: full jitter 0.5 of 1000 ms
    expect(server.requests).toHaveLength(1);
    await clock.advance(1);
    await clock.waitForSleepers(1);
    expect(server.requests).toHaveLength(2);
    await clock.advance(1000); // attempt 2: 0.5 of 2000 ms
    const status = await polling;
    expect(status).toMatchObject({
      taskId: 'task_1',
      phase: 'succeeded',
      totalTokens: 108900,
      finalResolution: '720p',
      progress: 100,
    });
    expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill('/v1/video/generations/task_1'));
    expect(server.requests[0]!.headers['authorization']).toMatch(/^Bearer /);
    expect(client.stats()).toMatchObject({ requests: 3, retries: 2 });
  });

  it('404 throws at once, without retrying', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 404, { code: 'task_not_exist', message: 'task_not_exist' }),
    );
    const error = await client.getTask('task_gone').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayHttpError);
    expect(error).toMatchObject({ status: 404, code: 'task_not_exist' });
    expect(server.requests).toHaveLength(1);
  });

  it('401 throws at once', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 401, { error: { message: 'invalid token', type: 'new_api_error' } }),
    );
    await expect(client.getTask('t')).rejects.toMatchObject({ status: 401 });
    expect(server.requests).toHaveLength(1);
  });

  it('a reset connection is retried', async () => {
    const { client, clock } = await setup((req, res, i) =>
      i === 0 ? req.socket.destroy() : json(res, 200, { task_id: 't', status: 'in_progress', progress: 40 }),
    );
    const status = await drive(clock, client.getTask('t'));
    expect(status).toMatchObject({ phase: 'running', progress: 40 });
  });

  it('429 waits Retry-After, pausing the account, then retries', async () => {
    const { server, client, clock } = await setup((_req, res, i) =>
      i === 0
        ? json(res, 429, { error: { message: 'slow', type: 'rate_limit_error' } }, { 'retry-after': '20' })
        : json(res, 200, SUCCESS),
    );
    const polling = client.getTask('task_1');
    await clock.waitForSleepers(1);
    expect(client.pausedUntil()).toBe(clock.now() + 20_000);
    await clock.advance(19_999);
    expect(server.requests).toHaveLength(1);
    await clock.advance(1);
    expect((await polling).phase).toBe('succeeded');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxAttempts and throws the last error', async () => {
    const { server, client, clock } = await setup((_req, res) =>
      json(res, 500, { error: { message: 'boom', type: 'new_api_error' } }),
    );
    const error = await drive(clock, client.getTask('t')).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, message: '500 boom' });
    expect(server.requests).toHaveLength(4);
  });

  it('a body in neither shape throws without retrying', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, { hello: 'world' }));
    await expect(client.getTask('t')).rejects.toThrow(/neither of the documented shapes/);
    expect(server.requests).toHaveLength(1);
  });

  it('an abort during backoff throws GBATCH_ABORTED', async () => {
    const { client, clock } = await setup((_req, res) => json(res, 503, { code: 'busy', message: 'busy' }));
    const controller = new AbortController();
    const polling = client.getTask('t', controller.signal);
    await clock.waitForSleepers(1);
    controller.abort();
    const error = await polling.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ code: 'GBATCH_ABORTED' });
  });
});

describe('listModels', () => {
  it('returns the model ids', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 200, {
        object: 'list',
        data: [
          { id: 'video-fast', object: 'model', owned_by: 'x' },
          { id: 'chat-small', object: 'model', owned_by: 'x' },
        ],
      }),
    );
    expect(await client.listModels()).toEqual(['video-fast', 'chat-small']);
    expect(server.requests[0]!.url).toBe('/v1/models');
  });
});
