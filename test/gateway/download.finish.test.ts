// The finishing step of a download (read-back hash and fsync, after the whole body arrived): a file
// system failure there (a failing disk may report it only at the fsync, after every write succeeded)
// is the download's `io` failure, never retried, with nothing left behind.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { downloadToFile, type DownloadDeps } from '../../src/gateway/download.js';
import { DownloadError, GatewayTransportError } from '../../src/gateway/errors.js';
import type { Exchange } from '../../src/gateway/http.js';
import { redactNothing } from '../../src/gateway/redact.js';
import { FileHasher } from '../../src/io/file-hasher.js';

const fsyncs = vi.hoisted(() => ({ failNext: false, calls: 0 }));

// The real fsync, unless a test asks for the next one to fail.
vi.mock('../../src/io/callback-fs.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/io/callback-fs.js')>();
  return {
    ...real,
    syncFile: async (fd: number) => {
      fsyncs.calls++;
      if (fsyncs.failNext) {
        fsyncs.failNext = false;
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', syscall: 'fsync' });
      }
      return real.syncFile(fd);
    },
  };
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let hasher: FileHasher;
beforeAll(() => {
  hasher = new FileHasher();
});
afterAll(async () => {
  await hasher.close();
});

const SOURCES = [{ source: 'content' as const, url: new URL('http://gateway.test/v1/videos/t/content') }];

/** A fresh directory (removed after the test) and the output path in it. */
function scratch(): { dir: string; dest: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gbatch-finish-'));
  dirs.push(dir);
  return { dir, dest: join(dir, 'row.mp4') };
}

const BODY = Buffer.alloc(100_000, 7);

function video(): Exchange {
  return {
    status: 200,
    headers: { 'content-type': 'video/mp4', 'content-length': String(BODY.length) },
    body: Readable.from([BODY.subarray(0, 60_000), BODY.subarray(60_000)]) as unknown as Exchange['body'],
    failure: (err) => new GatewayTransportError('GBATCH_RESET', true, String(err)),
  };
}

function deps(hasher: FileHasher, opens: { count: number }): DownloadDeps {
  return {
    open: async () => {
      opens.count++;
      return video();
    },
    clock: systemClock,
    random: () => 0.5,
    backoff: { baseMs: 1, maxMs: 1, maxAttempts: 3 },
    redact: redactNothing,
    hasher,
    onRetry: () => undefined,
  };
}

describe('download: the finishing step', () => {
  it('a read error while hashing the written file is an io failure: not retried, no file, no temp file', async () => {
    const { dir, dest } = scratch();
    const failingHasher = {
      hash: async () => {
        throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', syscall: 'read' });
      },
      close: async () => undefined,
    } as unknown as FileHasher;
    const opens = { count: 0 };
    let received = 0;
    const error = await downloadToFile(
      deps(failingHasher, opens),
      't',
      dest,
      SOURCES,
      3,
      undefined,
      () => received++,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect(error).toMatchObject({ reason: 'io', source: 'content' });
    expect((error as Error).message).toContain('EIO: i/o error, read');
    expect(opens.count).toBe(1);
    expect(received).toBe(1);
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('with the real hasher the same body is stored whole, with the sha256 of what is on disk', async () => {
    const { dir, dest } = scratch();
    const result = await downloadToFile(deps(hasher, { count: 0 }), 't', dest, SOURCES, 3);
    const { createHash } = await import('node:crypto');
    expect(result).toEqual({
      bytes: BODY.length,
      sha256: createHash('sha256').update(BODY).digest('hex'),
      source: 'content',
    });
    expect(readdirSync(dir)).toEqual(['row.mp4']);
  });

  it('an fsync error on the written file is an io failure: not retried, no file, no temp file; the next try stores it', async () => {
    const { dir, dest } = scratch();
    const opens = { count: 0 };
    fsyncs.calls = 0;
    fsyncs.failNext = true;
    const error = await downloadToFile(deps(hasher, opens), 't', dest, SOURCES, 3).catch((e: unknown) => e);
    expect(fsyncs.calls).toBe(1);
    expect(error).toBeInstanceOf(DownloadError);
    expect(error).toMatchObject({ reason: 'io', source: 'content' });
    expect((error as Error).message).toContain('EIO: i/o error, fsync');
    expect(opens.count).toBe(1);
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);

    const stored = await downloadToFile(deps(hasher, opens), 't', dest, SOURCES, 3);
    expect(stored.bytes).toBe(BODY.length);
    expect(readdirSync(dir)).toEqual(['row.mp4']);
  });
});
