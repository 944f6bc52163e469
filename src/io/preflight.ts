// Checks made before a run touches the journal or sends anything: the manifests can be read, and the
// directories of the journal and of the outputs can be created and written. A refusal is a ConfigError
// naming the path and the cause, and leaves behind no directory this check created.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, describeErrno, errnoOf } from '../core/config-error.js';
import { makeDirectoriesSync } from './make-directories.js';

export interface RunPaths {
  manifests: readonly string[];
  /** The journal's file; omitted for a journal on a database server. */
  statePath?: string;
  /** Omitted when the run writes no outputs (--ingest-only). */
  outDir?: string;
}

/**
 * What a passed preflight made; `undo()` removes it when the run is refused right after (the journal would not open).
 */
export interface Preflight {
  undo(): void;
}

export function preflightRun(paths: RunPaths): Preflight {
  for (const manifest of paths.manifests) checkReadableFile(manifest, 'manifest');
  const created: string[] = [];
  // Deepest first, and only directories this check made.
  const undo = (): void => {
    for (const dir of created.reverse()) rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (paths.statePath !== undefined) checkJournalPath(paths.statePath, created);
    if (paths.outDir !== undefined) checkWritableDir(paths.outDir, '--out', created);
  } catch (err) {
    undo();
    throw err;
  }
  return { undo };
}

/** A manifest must be a regular file this process can open for reading. */
export function checkReadableFile(path: string, what: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (err) {
    throw new ConfigError(`${path}: cannot read the ${what}: ${describeErrno(err)}`, { cause: err });
  }
  if (!stats.isFile()) throw new ConfigError(`${path}: the ${what} is not a regular file`);
  try {
    closeSync(openSync(path, 'r'));
  } catch (err) {
    throw new ConfigError(`${path}: cannot read the ${what}: ${describeErrno(err)}`, { cause: err });
  }
}

function checkJournalPath(statePath: string, created: string[]): void {
  let stats;
  try {
    stats = statSync(statePath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`${statePath}: cannot use it as the journal (--state): ${describeErrno(err)}`, {
        cause: err,
      });
    }
  }
  if (stats && !stats.isFile())
    throw new ConfigError(`${statePath}: cannot use it as the journal (--state): it is not a regular file`);
  checkWritableDir(dirname(statePath), `the directory of the journal ${statePath}`, created);
}

/** Creates `dir` if needed, then writes, syncs and removes a probe file in it. */
export function checkWritableDir(dir: string, what: string, created: string[] = []): void {
  const refuse = (err: unknown, reason = describeErrno(err)): ConfigError =>
    new ConfigError(`${dir}: cannot write ${what} there: ${reason}`, { cause: err });
  try {
    const first = makeDirectoriesSync(dir);
    if (first !== undefined) created.push(first);
  } catch (err) {
    // ENOENT from a mkdir whose parent exists: the file system (procfs, sysfs) makes no directories there.
    throw refuse(
      err,
      errnoOf(err) === 'ENOENT' ? 'the file system does not allow creating a directory there (ENOENT)' : undefined,
    );
  }
  let stats;
  try {
    stats = statSync(dir);
  } catch (err) {
    throw refuse(err);
  }
  if (!stats.isDirectory()) throw new ConfigError(`${dir}: cannot write ${what} there: it is not a directory`);
  const probe = join(dir, `.gbatch-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  let fd: number | undefined;
  try {
    fd = openSync(probe, 'wx');
    writeSync(fd, 'gbatch write check\n');
    fsyncSync(fd);
  } catch (err) {
    throw refuse(err);
  } finally {
    if (fd !== undefined) {
      closeSync(fd);
      try {
        unlinkSync(probe);
      } catch {
        // Written but not removable: the directory is still writable, which is what was asked.
      }
    }
  }
}
