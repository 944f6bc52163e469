// File writes through the callback fs API (the threadpool), shared by the writers of outputs. Not
// fs/promises: its FileHandle.close() was seen never to settle after a streamed body (Node 20.20),
// which hung a download lane.
import { close, fsync, open, writev } from 'node:fs';
import { rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

export const openFile = promisify(open);
export const syncFile = promisify(fsync);
export const closeFile = promisify(close);
const writevFile = promisify(writev);

/** The part of `chunks` a gathered write of `written` bytes left unwritten (no bytes copied). */
export function unwrittenChunks(chunks: readonly Buffer[], written: number): Buffer[] {
  let i = 0;
  let left = written;
  while (i < chunks.length && left >= chunks[i]!.length) left -= chunks[i++]!.length;
  const rest = chunks.slice(i);
  if (left > 0 && rest.length > 0) rest[0] = rest[0]!.subarray(left);
  return rest;
}

/** One gathered write of the chunks (no copy into a joined buffer), continued after a short write. */
export async function writeChunks(fd: number, chunks: Buffer[]): Promise<void> {
  for (let rest = chunks; rest.length > 0;) {
    const { bytesWritten } = await writevFile(fd, rest);
    rest = unwrittenChunks(rest, bytesWritten);
  }
}

async function fsyncDirectory(dir: string): Promise<void> {
  try {
    const fd = await openFile(dir, 'r');
    try {
      await syncFile(fd);
    } finally {
      await closeFile(fd);
    }
  } catch {
    // Not every platform can fsync a directory; the rename itself is still atomic.
  }
}

/** Renames a synced temp file over its destination and syncs the directory, so the new name survives a power cut. */
export async function renameDurably(temp: string, dest: string): Promise<void> {
  await rename(temp, dest);
  await fsyncDirectory(dirname(dest));
}
