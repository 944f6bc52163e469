import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DownloadError } from '../../src/gateway/errors.js';
import { API_KEY, drive, makeClient } from '../helpers/client-fixture.js';
import { json, startServer, type Handler } from '../helpers/test-server.js';

const VIDEO = randomBytes(300_000);
const VIDEO_SHA256 = createHash('sha256').update(VIDEO).digest('hex');
const cleanups: Array<() => Promise<void>> = [];
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gbatch-download-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
});

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function serveVideo(res: ServerResponse, bytes: Buffer = VIDEO): void {
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
  res.end(bytes);
}

/** Declares the full length, sends half, then drops the connection. */
function serveTruncated(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length });
  res.write(VIDEO.subarray(0, VIDEO.length / 2), () => res.socket?.destroy());
}

async function server(handler: Handler) {
  const s = await startServer(handler);
  cleanups.push(() => s.close());
  return s;
}

async function clientFor(baseUrl: string) {
  const made = makeClient(baseUrl);
  cleanups.push(() => made.client.close());
  return made;
}

async function leftovers(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.part'));
}

describe('download', () => {
  it('streams the content endpoint to dest: sha256 of the served bytes, no temp file left', async () => {
    const gateway = await server((_req, res) => serveVideo(res));
    const { client } = await clientFor(gateway.baseUrl);
    const dest = join(dir, 'row1.mp4');
    const result = await client.download('task_1', dest);
    expect(result).toEqual({ bytes: VIDEO.length, sha256: VIDEO_SHA256, source: 'content' });
    expect((await readFile(dest)).equals(VIDEO)).toBe(true);
    expect(await leftovers()).toEqual([]);
    expect(gateway.requests[0]).toMatchObject({ method: 'GET', url: '/v1/videos/task_1/content' });
    expect(gateway.requests[0]!.headers['authorization']).toBe(`Bearer ${API_KEY}`);
  });

  it('retries a truncated body twice, then stores the whole file', async () => {
    const gateway = await server((_req, res, i) => (i < 2 ? serveTruncated(res) : serveVideo(res)));
    const { client, clock } = await clientFor(gateway.baseUrl);
    const dest = join(dir, 'row2.mp4');
    const result = await drive(clock, client.download('task_2', dest));
    expect(result).toEqual({ bytes: VIDEO.length, sha256: VIDEO_SHA256, source: 'content' });
    expect(
      createHash('sha256')
        .update(await readFile(dest))
        .digest('hex'),
    ).toBe(VIDEO_SHA256);
    expect(gateway.requests).toHaveLength(3);
    expect(await leftovers()).toEqual([]);
  });

  it('retries a body that stalls past the body timeout', async () => {
    const gateway = await server((_req, res, i) => {
      if (i > 0) return serveVideo(res);
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length });
      res.write(VIDEO.subarray(0, 1000));
    });
    const made = makeClient(gateway.baseUrl, { bodyTimeoutMs: 100 });
    cleanups.push(() => made.client.close());
    const result = await drive(made.clock, made.client.download('task_s', join(dir, 'stall.mp4')));
    expect(result.sha256).toBe(VIDEO_SHA256);
    expect(gateway.requests).toHaveLength(2);
  });

  it('falls back to a result_url on another origin WITHOUT the Authorization header', async () => {
    const gateway = await server((_req, res) =>
      json(res, 500, { error: { message: 'storage down', type: 'new_api_error' } }),
    );
    const cdn = await server((_req, res) => serveVideo(res));
    const { client, clock } = await clientFor(gateway.baseUrl);
    const dest = join(dir, 'row3.mp4');
    const result = await drive(
      clock,
      client.download('task_3', dest, { resultUrl: `${cdn.origin}/signed/v.mp4?sig=abc` }),
    );
    expect(result).toEqual({ bytes: VIDEO.length, sha256: VIDEO_SHA256, source: 'result_url' });
    expect(gateway.requests).toHaveLength(3);
    expect(cdn.requests).toHaveLength(1);
    expect(cdn.requests[0]!.url).toBe('/signed/v.mp4?sig=abc');
    expect(cdn.requests[0]!.headers['authorization']).toBeUndefined();
    expect(JSON.stringify(cdn.requests[0]!.headers)).not.toContain(API_KEY);
  });

  it('uses the Authorization header for a result_url on the gateway origin', async () => {
    const gateway = await server((req, res) =>
      req.url!.startsWith('/files/')
        ? serveVideo(res)
        : json(res, 502, { error: { message: 'bad upstream', type: 'new_api_error' } }),
    );
    const { client, clock } = await clientFor(gateway.baseUrl);
    const result = await drive(
      clock,
      client.download('task_4', join(dir, 'row4.mp4'), { resultUrl: `${gateway.origin}/files/v.mp4` }),
    );
    expect(result.source).toBe('result_url');
    const fileRequest = gateway.requests.find((r) => r.url === '/files/v.mp4')!;
    expect(fileRequest.headers['authorization']).toBe(`Bearer ${API_KEY}`);
  });

  it('leaves the content endpoint at once on a 404 when a result_url exists', async () => {
    const gateway = await server((_req, res) =>
      json(res, 404, { error: { message: 'no content route', type: 'invalid_request_error' } }),
    );
    const cdn = await server((_req, res) => serveVideo(res));
    const { client } = await clientFor(gateway.baseUrl);
    const result = await client.download('task_5', join(dir, 'row5.mp4'), { resultUrl: `${cdn.origin}/v.mp4` });
    expect(result.source).toBe('result_url');
    expect(gateway.requests).toHaveLength(1);
  });

  it('drops the Authorization header when the content endpoint redirects to another origin', async () => {
    const cdn = await server((_req, res) => serveVideo(res));
    const gateway = await server((_req, res) => {
      res.writeHead(302, { location: `${cdn.origin}/blob/v.mp4` });
      res.end();
    });
    const { client } = await clientFor(gateway.baseUrl);
    const result = await client.download('task_6', join(dir, 'row6.mp4'));
    expect(result).toMatchObject({ source: 'content', sha256: VIDEO_SHA256 });
    expect(gateway.requests[0]!.headers['authorization']).toBeDefined();
    expect(cdn.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('when every source fails: DownloadError, nothing at dest, no temp file', async () => {
    const gateway = await server((_req, res) =>
      json(res, 503, { error: { message: 'no upstream', type: 'new_api_error' } }),
    );
    const cdn = await server((_req, res) => serveTruncated(res));
    const { client, clock } = await clientFor(gateway.baseUrl);
    const dest = join(dir, 'row7.mp4');
    const error = await drive(clock, client.download('task_7', dest, { resultUrl: `${cdn.origin}/v.mp4` })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DownloadError);
    expect(error).toMatchObject({ taskId: 'task_7', source: 'result_url', reason: 'transport', attempts: 6 });
    expect(existsSync(dest)).toBe(false);
    expect(await leftovers()).toEqual([]);
    expect(gateway.requests).toHaveLength(3);
    expect(cdn.requests).toHaveLength(3);
  });

  it('a failed download never touches an existing file at dest', async () => {
    const gateway = await server((_req, res) => serveTruncated(res));
    const { client, clock } = await clientFor(gateway.baseUrl);
    const dest = join(dir, 'row8.mp4');
    await writeFile(dest, 'previous complete file');
    await expect(drive(clock, client.download('task_8', dest))).rejects.toBeInstanceOf(DownloadError);
    expect(await readFile(dest, 'utf8')).toBe('previous complete file');
    expect(await leftovers()).toEqual([]);
  });

  it('refuses an error page served with status 200', async () => {
    const gateway = await server((_req, res) =>
      json(res, 200, { error: { message: 'task not ready', type: 'invalid_request_error' } }),
    );
    const { client } = await clientFor(gateway.baseUrl);
    const error = await client.download('task_9', join(dir, 'row9.mp4')).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'DownloadError', reason: 'not_video' });
    expect(gateway.requests).toHaveLength(1);
  });

  it('tells onReceived once the whole body is in and checked, before the file is in place; not for a short body', async () => {
    const gateway = await server((_req, res, i) => (i < 1 ? serveTruncated(res) : serveVideo(res)));
    const { client, clock } = await clientFor(gateway.baseUrl);
    const dest = join(dir, 'row10.mp4');
    const seen: Array<{ requests: number; destExists: boolean; parts: number }> = [];
    const onReceived = (): void => {
      const parts = readdirSync(dir).filter((name) => name.endsWith('.part')).length;
      seen.push({ requests: gateway.requests.length, destExists: existsSync(dest), parts });
    };
    const result = await drive(clock, client.download('task_10', dest, { onReceived }));
    expect(result.sha256).toBe(VIDEO_SHA256);
    expect(seen).toEqual([{ requests: 2, destExists: false, parts: 1 }]);
    expect(await leftovers()).toEqual([]);
  });
});
