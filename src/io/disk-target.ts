// A video to disk: streamed to a temp file beside the destination in gathered writes, then its sha256
// (read back in the hasher's thread) while it is fsynced, then renamed. The destination is either the
// complete file or untouched.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { closeFile, openFile, renameDurably, syncFile, writeChunks } from './callback-fs.js';
import type { FileHasher } from './file-hasher.js';
import { makeDirectories } from './make-directories.js';
import type { BodyTarget, ReceivedBody } from './output-store.js';

/** The file `dest`, written under a temp name and renamed once whole. */
export function diskTarget(dest: string, hasher: FileHasher): BodyTarget {
  const tempPath = tempPathFor(dest);
  return {
    location: dest,
    prepare: async () => {
      await makeDirectories(dirname(dest));
    },
    receive: async (body) => {
      const received = await writeBody(body, tempPath, hasher);
      const finish = async (): Promise<string> => {
        const sha256 = await received.finish();
        await renameDurably(tempPath, dest);
        return sha256;
      };
      return { ...received, finish };
    },
    clear: () => rm(tempPath, { force: true }),
  };
}

export function tempPathFor(dest: string): string {
  return join(dirname(dest), `.${basename(dest)}.${randomBytes(4).toString('hex')}.part`);
}

const WRITE_BATCH_BYTES = 1 << 20;
/** Bytes handed to the threadpool but not yet written; reading waits above this (bounded memory). */
const MAX_UNWRITTEN_BYTES = 4 * WRITE_BATCH_BYTES;
/** Stays under IOV_MAX (1024) when a body arrives in many tiny chunks. */
const MAX_CHUNKS_PER_WRITE = 1024;

/**
 * Streams the body to the temp file in ~1 MiB gathered writes that run in the threadpool while the next
 * bytes are received: reading waits only when 4 MiB are still unwritten. Writes are chained, so they
 * land in order. Returns when the last byte has arrived; the file is then hashed (read back in the
 * hasher's thread) while it is synced.
 */
async function writeBody(body: AsyncIterable<Buffer>, tempPath: string, hasher: FileHasher): Promise<ReceivedBody> {
  let bytes = 0;
  const fd = await openFile(tempPath, 'w+'); // read too: the hasher reads the file back
  let written: Promise<void> = Promise.resolve();
  const closeAfterWrites = async (): Promise<void> => {
    await written.catch(() => undefined); // never close the fd under a write still in the threadpool
    await closeFile(fd);
  };
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let unwrittenBytes = 0;
    const flush = (): void => {
      if (pendingBytes === 0) return;
      const chunks = pending;
      const size = pendingBytes;
      pending = [];
      pendingBytes = 0;
      unwrittenBytes += size;
      written = written.then(async () => {
        await writeChunks(fd, chunks);
        unwrittenBytes -= size;
      });
      written.catch(() => undefined); // a failed write surfaces at the next await of `written`, not as unhandled
    };
    for await (const chunk of body) {
      bytes += chunk.length;
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= WRITE_BATCH_BYTES || pending.length >= MAX_CHUNKS_PER_WRITE) {
        flush();
        if (unwrittenBytes > MAX_UNWRITTEN_BYTES) await written;
      }
    }
    flush();
  } catch (err) {
    await closeAfterWrites();
    throw err;
  }
  const finish = async (): Promise<string> => {
    try {
      await written;
      const [sha256] = await Promise.all([hasher.hash(fd, bytes), syncFile(fd)]);
      return sha256;
    } finally {
      await closeAfterWrites();
    }
  };
  return { bytes, finish, discard: closeAfterWrites };
}
