// Real small or read-only file systems for tests of write failures: a tmpfs mounted for one test
// (root only), unmounted when the test ends.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export const CAN_MOUNT = process.platform === 'linux' && process.getuid?.() === 0;

export interface Tmpfs {
  dir: string;
  remount(options: string): void;
}

/** A tmpfs of `size` (e.g. '1m') at a fresh directory; `options` adds mount options such as 'ro'. */
export function mountTmpfs(size: string, options = ''): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), 'gbatch-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${options ? `,${options}` : ''}`, 'tmpfs', dir]);
  onTestFinished(() => {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, remount: (more) => execFileSync('mount', ['-o', `remount,${more}`, dir]) };
}
