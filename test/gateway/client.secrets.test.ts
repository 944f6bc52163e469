import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { errorSummary } from '../../src/gateway/errors.js';
import { API_KEY, drive, makeClient } from '../helpers/client-fixture.js';
import { json, startServer } from '../helpers/test-server.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Every way an error can be looked at: message, JSON, the journal summary, the cause chain. */
function renderings(error: unknown): string[] {
  const out: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    out.push(
      current.message,
      String(current),
      JSON.stringify(current),
      JSON.stringify(errorSummary(current)),
      current.stack ?? '',
    );
    current = current.cause;
  }
  return out;
}

describe('the API key never appears in an error', () => {
  it('even when the gateway echoes the Authorization header back in every field', async () => {
    const server = await startServer((req, res) => {
      const auth = String(req.headers['authorization']);
      const key = auth.replace(/^Bearer /, '');
      switch (req.url) {
        case '/v1/chat/completions':
          return json(res, 400, {
            error: { message: `bad request from ${auth}`, type: `t_${key}`, param: key, code: key },
          });
        case '/v1/responses':
          res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': key });
          return res.end(`<html>upstream rejected key ${key}</html>`);
        case '/v1/video/generations':
          return json(res, 429, { code: key, message: `rate limited for ${key}` }, { 'retry-after': '1' });
        case '/v1/video/generations/t1':
          return json(res, 404, { code: 'task_not_exist', message: `no task for key ${key}` });
        default:
          return json(res, 401, { error: { message: `invalid token ${auth}`, type: 'new_api_error' } });
      }
    });
    const { client, clock } = makeClient(server.baseUrl);
    const dir = await mkdtemp(join(tmpdir(), 'gbatch-secrets-'));
    cleanups.push(
      () => client.close(),
      () => server.close(),
      () => rm(dir, { recursive: true, force: true }),
    );

    const errors: unknown[] = [];
    for (const kind of ['chat', 'responses', 'video'] as const) {
      const outcome = await drive(clock, client.send(kind, { model: 'm', prompt: 'p' }, 1));
      expect(outcome.kind).not.toBe('accepted');
      errors.push((outcome as { error: unknown }).error);
    }
    errors.push(await drive(clock, client.getTask('t1')).catch((e: unknown) => e));
    errors.push(await drive(clock, client.listModels()).catch((e: unknown) => e));
    errors.push(await drive(clock, client.download('t2', join(dir, 'v.mp4'))).catch((e: unknown) => e));

    expect(server.requests.every((r) => r.headers['authorization'] === `Bearer ${API_KEY}`)).toBe(true);
    expect(errors).toHaveLength(6);
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      for (const text of renderings(error)) expect(text).not.toContain(API_KEY);
    }
    // The messages still say what happened.
    expect((errors[0] as Error).message).toBe('400 bad request from Bearer [redacted]');
    expect((errors[3] as Error).message).toBe('404 no task for key [redacted]');
  });

  it('nor in transport errors', async () => {
    const server = await startServer((req) => req.socket.destroy());
    const { client } = makeClient(server.baseUrl);
    cleanups.push(
      () => client.close(),
      () => server.close(),
    );
    const outcome = await client.send('video', { model: 'm', prompt: API_KEY }, 1);
    expect(outcome.kind).toBe('ambiguous');
    for (const text of renderings((outcome as { error: unknown }).error)) expect(text).not.toContain(API_KEY);
  });
});
