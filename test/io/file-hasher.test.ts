// The hashing thread: the sha256 of what is on disk, for the caller's open file, off the main thread.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileHasher } from '../../src/io/file-hasher.js';

const dir = mkdtempSync(join(tmpdir(), 'gbatch-hasher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(name: string, bytes: Buffer): number {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return openSync(path, 'r');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('FileHasher', () => {
  it('hashes files of every size around its 1 MiB read buffer, many at once', async () => {
    const hasher = new FileHasher();
    try {
      const sizes = [1, 1000, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7];
      const contents = sizes.map((size) => randomBytes(size));
      const fds = contents.map((bytes, i) => fileOf(`f${i}`, bytes));
      const hashes = await Promise.all(fds.map((fd, i) => hasher.hash(fd, sizes[i]!)));
      expect(hashes).toEqual(contents.map(sha256));
      fds.forEach((fd) => closeSync(fd));
    } finally {
      await hasher.close();
    }
  });

  it('hashes only the first `bytes` bytes, and refuses a file shorter than that', async () => {
    const hasher = new FileHasher();
    try {
      const content = randomBytes(5000);
      const fd = fileOf('short', content);
      expect(await hasher.hash(fd, 4000)).toBe(sha256(content.subarray(0, 4000)));
      await expect(hasher.hash(fd, 6000)).rejects.toMatchObject({
        message: 'the file ended after 5000 of 6000 bytes',
        syscall: 'read',
      });
      closeSync(fd);
    } finally {
      await hasher.close();
    }
  });

  it('a descriptor that cannot be read rejects with the system error; the hasher keeps working', async () => {
    const hasher = new FileHasher();
    try {
      const writeOnly = openSync(join(dir, 'wo'), 'w');
      await expect(hasher.hash(writeOnly, 10)).rejects.toMatchObject({ code: 'EBADF', syscall: 'read' });
      closeSync(writeOnly);
      const fd = fileOf('after', Buffer.from('still here'));
      expect(await hasher.hash(fd, 10)).toBe(sha256(Buffer.from('still here')));
      closeSync(fd);
    } finally {
      await hasher.close();
    }
  });

  it('an idle hasher that was never closed does not keep the process alive (the built module)', () => {
    const script = `
      import { openSync, writeFileSync } from 'node:fs';
      import { FileHasher } from ${JSON.stringify(new URL('../../dist/io/file-hasher.js', import.meta.url).href)};
      const path = ${JSON.stringify(join(dir, 'exit'))};
      writeFileSync(path, 'abc');
      const hash = await new FileHasher().hash(openSync(path, 'r'), 3);
      console.log(hash);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe(sha256(Buffer.from('abc')));
    expect(child.status).toBe(0);
  });
});
