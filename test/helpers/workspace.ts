// A fresh temp directory per test (journal, outputs, manifests), removed when the test ends.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

/** The repository root: child processes run `bin/gbatch.js` from here. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Workspace {
  dir: string;
  /** The journal: `<dir>/state/job.db`. */
  state: string;
  /** The output folder: `<dir>/out`. */
  out: string;
  path(...parts: string[]): string;
}

/** A workspace the caller removes (for a `beforeAll` shared by several tests). */
export function createWorkspace(prefix = 'gbatch-e2e-'): Workspace & { remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    state: join(dir, 'state', 'job.db'),
    out: join(dir, 'out'),
    path: (...parts) => join(dir, ...parts),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A workspace removed when the current test ends. */
export function workspace(prefix?: string): Workspace {
  const ws = createWorkspace(prefix);
  onTestFinished(() => ws.remove());
  return ws;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function sha256File(file: string): string {
  return sha256(readFileSync(file));
}

/** sha256 of the MP4 the simulator serves (it is not padded in these tests). */
export const SIM_VIDEO_SHA256 = sha256File(join(ROOT, 'assets', 'sim-video.mp4'));

/** Every regular file under `dir`, recursively, as absolute paths. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}
