// Making deferred commits durable: the WAL fsynced from outside SQLite, once, after many commits made without one.
import { closeSync, fsyncSync, openSync } from 'node:fs';

/** An fsync of the WAL from outside SQLite: what a `synchronous = FULL` commit would have done. */
export function fsyncWalFile(walPath: string): void {
  let fd: number;
  try {
    fd = openSync(walPath, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // checkpointed and removed: already in the synced database
    throw err;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
