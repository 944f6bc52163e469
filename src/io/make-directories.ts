// `mkdir -p` that always ends. Node's own recursive mkdir loops forever, synchronously and deaf to
// signals, where mkdir answers ENOENT although the parent exists (`/proc/x`: procfs refuses new entries
// that way): it reads ENOENT as "make the parent", finds it there, and tries the child again. Here each
// missing directory is tried once, parents first, and any other refusal, ENOENT included, is the answer.
import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** What a failed mkdir of `at` means for the walk up: the ancestor exists, look higher, or give up. */
function walkUp(err: unknown, at: string): 'exists' | 'parent' {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EEXIST') return 'exists';
  if (code === 'ENOENT' && dirname(at) !== at) return 'parent';
  throw err;
}

function removeQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty or gone: someone else's now; the error that matters is the one being thrown.
  }
}

/**
 * Creates `dir` and its missing parents; returns the first directory it made (undefined if none), as
 * `mkdirSync(dir, { recursive: true })` does. An existing `dir` that is not a directory fails with
 * EEXIST, a file further up with ENOTDIR. On failure the directories made so far are removed again.
 */
export function makeDirectoriesSync(dir: string): string | undefined {
  const missing: string[] = [];
  const made: string[] = [];
  try {
    for (let at = resolve(dir); ; at = dirname(at)) {
      try {
        mkdirSync(at);
        made.push(at);
        break;
      } catch (err) {
        if (walkUp(err, at) === 'exists') {
          if (!statSync(at).isDirectory()) throw err;
          break;
        }
        missing.push(at);
      }
    }
    for (const child of missing.reverse()) {
      try {
        mkdirSync(child);
        made.push(child);
      } catch (err) {
        // Another process made it meanwhile (two runs creating one --out at once): a directory is fine.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(child).isDirectory()) throw err;
      }
    }
  } catch (err) {
    for (const at of made.reverse()) removeQuietly(at);
    throw err;
  }
  return made[0];
}

/** makeDirectoriesSync without blocking: the same walk on the promise API. */
export async function makeDirectories(dir: string): Promise<string | undefined> {
  const missing: string[] = [];
  const made: string[] = [];
  try {
    for (let at = resolve(dir); ; at = dirname(at)) {
      try {
        await mkdir(at);
        made.push(at);
        break;
      } catch (err) {
        if (walkUp(err, at) === 'exists') {
          if (!(await stat(at)).isDirectory()) throw err;
          break;
        }
        missing.push(at);
      }
    }
    for (const child of missing.reverse()) {
      try {
        await mkdir(child);
        made.push(child);
      } catch (err) {
        // Another process made it meanwhile (two runs creating one --out at once): a directory is fine.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(child)).isDirectory()) throw err;
      }
    }
  } catch (err) {
    for (const at of made.reverse()) await rmdir(at).catch(() => {});
    throw err;
  }
  return made[0];
}
