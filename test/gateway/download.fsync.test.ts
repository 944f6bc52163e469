// The finishing step of a download, its other half: an fsync of the written file that fails (a full or
// failing disk reports it there, after every write succeeded) is the download's `io` failure: not
// retried, no file under the output name, no temp file left.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { downloadToFile } from '../../src/gateway/download.js';
import { DownloadError, GatewayTransportError } from '../../src/gateway/errors.js';
import type { Exchange } from '../../src/gateway/http.js';
import { redactNothing } from '../../src/gateway/redact.js';
import { FileHasher } from '../../src/io/file-hasher.js';

const fsyncs = vi.hoisted(() => ({ failNext: false, calls: 0 }));

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

const BODY = Buffer.alloc(100_000, 9);

function video(): Exchange {
  return {
    status: 200,
    headers: { 'content-type': 'video/mp4', 'content-length': String(BODY.length) },
    body: Readable.from([BODY.subarray(0, 40_000), BODY.subarray(40_000)]) as unknown as Exchange['body'],
    failure: (err) => new GatewayTransportError('GBATCH_RESET', true, String(err)),
  };
}

it('an fsync error on the written file is an io failure: not retried, no file, no temp file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gbatch-fsync-'));
  dirs.push(dir);
  const hasher = new FileHasher();
  try {
    let opens = 0;
    const deps = {
      open: async () => { opens++; return video(); },
      clock: systemClock, random: () => 0.5, backoff: { baseMs: 1, maxMs: 1, maxAttempts: 3 },
      redact: redactNothing, hasher, onRetry: () => undefined,
    };
    const dest = join(dir, 'row.mp4');
    const sources = [{ source: 'content' as const, url: new URL('http://gateway.test/v1/videos/t/content') }];
    fsyncs.failNext = true;
    const error = await downloadToFile(deps, 't', dest, sources, 3).catch((e: unknown) => e);
    expect(fsyncs.calls).toBe(1);
    expect(error).toBeInstanceOf(DownloadError);
    expect(error).toMatchObject({ reason: 'io', source: 'content' });
    expect((error as Error).message).toContain('EIO: i/o error, fsync');
    expect(opens).toBe(1);
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);

    // The same download once the disk is well again: stored whole.
    const stored = await downloadToFile(deps, 't', dest, sources, 3);
    expect(stored.bytes).toBe(BODY.length);
    expect(readdirSync(dir)).toEqual(['row.mp4']);
  } finally {
    await hasher.close();
  }
});
