// `mkdir -p` that ends: missing parents made top first, an existing directory left alone, and a file
// system that answers ENOENT with the parent present (procfs) refused at once instead of looped on.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDirectories, makeDirectoriesSync } from '../../src/io/make-directories.js';

const CAN_PROBE_PROC = existsSync('/proc/self');
const roots: string[] = [];
afterEach(() => {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gbatch-mkdirs-'));
  roots.push(dir);
  return dir;
}

for (const [name, make] of [
  ['makeDirectoriesSync', async (dir: string) => makeDirectoriesSync(dir)],
  ['makeDirectories', makeDirectories],
] as const) {
  describe(name, () => {
    it('makes every missing parent and returns the first one made', async () => {
      const root = scratch();
      expect(await make(join(root, 'a', 'b', 'c'))).toBe(join(root, 'a'));
      expect(statSync(join(root, 'a', 'b', 'c')).isDirectory()).toBe(true);
    });

    it('returns undefined for a directory that exists, and makes only the missing tail', async () => {
      const root = scratch();
      expect(await make(root)).toBeUndefined();
      expect(await make(join(root, 'x'))).toBe(join(root, 'x'));
      expect(await make(join(root, 'x', 'y'))).toBe(join(root, 'x', 'y'));
    });

    it('a file in the path: ENOTDIR, nothing left behind', async () => {
      const root = scratch();
      writeFileSync(join(root, 'file'), '');
      await expect(make(join(root, 'file', 'a', 'b'))).rejects.toMatchObject({ code: 'ENOTDIR' });
      expect(readdirSync(root)).toEqual(['file']);
    });

    it('an existing file as the directory: EEXIST', async () => {
      const root = scratch();
      writeFileSync(join(root, 'file'), '');
      await expect(make(join(root, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
    });

    it('a refusal after parents were made removes them again', async () => {
      const root = scratch();
      // The missing parents are made; the last name is too long for any file system.
      await expect(make(join(root, 'a', 'b', 'n'.repeat(300)))).rejects.toMatchObject({ code: 'ENAMETOOLONG' });
      expect(readdirSync(root)).toEqual([]);
    });

    it.skipIf(!CAN_PROBE_PROC)('/proc/x (ENOENT with /proc present) fails with ENOENT at once', async () => {
      await expect(make('/proc/gbatch-no-such/a')).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(make('/proc/gbatch-no-such')).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });
}

describe('makeDirectories, several at once', () => {
  it('ends well for each when others make the same missing parents meanwhile (two runs creating one --out)', async () => {
    const root = scratch();
    const target = join(root, 'out', 'rows', 'videos');
    const made = await Promise.all(Array.from({ length: 8 }, () => makeDirectories(target)));
    expect(statSync(target).isDirectory()).toBe(true);
    expect(made.filter((first) => first !== undefined).length).toBeGreaterThanOrEqual(1);
  });
});
