// results.jsonl is derived from the journal: rebuilt (the settled prefix of the file written last is
// copied, the rest read from the journal), written to a temp file, synced and renamed, so a crash can
// neither duplicate nor lose a line. Items whose line is on disk move to `downloaded`.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { closeFile, openFile, renameDurably, syncFile, writeChunks } from '../io/callback-fs.js';
import type { JournalStore, ResultRow } from '../journal/index.js';
import { resultLineFromRow } from './results-line.js';

export { takePage } from '../journal/result-row.js';

export function resultsPath(outDir: string): string {
  return join(outDir, 'results.jsonl');
}

export { resultLine, resultLineFromRow } from './results-line.js';

const PAGE_ROWS = 500;
/** A page read from the journal holds at most this many bytes of bodies (or one row, whatever its size). */
export const PAGE_BYTES = 8 * 1024 * 1024;
/** Short lines are joined into chunks of about this size before they are written. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * What a rebuild may reuse from the file the previous one wrote: its first `bytes` bytes hold the lines
 * of every item up to `seq`, all settled. The file is identified by inode, size and mtime; a file
 * changed by anyone else is not reused.
 */
export interface SettledPrefix {
  seq: number;
  bytes: number;
  file: { ino: number; size: number; mtimeMs: number };
}

export interface ResultsRebuild {
  /** Ids of items whose line is now durable and that were `succeeded` (not yet `downloaded`). */
  written: string[];
  prefix: SettledPrefix;
}

async function reusablePrefix(target: string, prefix: SettledPrefix | undefined): Promise<SettledPrefix | undefined> {
  if (!prefix) return undefined;
  const now = await stat(target).catch(() => undefined);
  const same = now && now.ino === prefix.file.ino && now.size === prefix.file.size && now.mtimeMs === prefix.file.mtimeMs;
  return same ? prefix : undefined;
}


/**
 * Rewrites results.jsonl from the journal into a temp file renamed over the old one. Lines of settled
 * items already in the previous file (`previous`) are copied from it in the kernel; the rest are read
 * from the journal in pages bounded by rows and by bytes (rows are pulled one by one), and written line by line (short lines in
 * chunks of about 1 MiB), so neither a page nor a chunk grows with the bodies' total size. A failed
 * write removes the temp file and leaves the previous results.jsonl as it was.
 */
export async function writeResultsFile(journal: JournalStore, outDir: string, previous?: SettledPrefix): Promise<ResultsRebuild> {
  await mkdir(outDir, { recursive: true });
  const target = resultsPath(outDir);
  const temp = join(outDir, `.results.jsonl.${process.pid}.${randomBytes(4).toString('hex')}.part`);
  const settledUpTo = ((await journal.firstOpenSeq()) ?? Number.MAX_SAFE_INTEGER) - 1;
  const reuse = await reusablePrefix(target, previous);
  const written: string[] = [];
  let bytes = reuse?.bytes ?? 0;
  let prefixBytes = bytes;
  try {
    if (reuse) {
      await copyFile(target, temp);
      await truncate(temp, reuse.bytes);
    }
    const fd = await openFile(temp, reuse ? 'a' : 'w');
    try {
      for (let after = reuse?.seq ?? 0; ;) {
        const page = await journal.resultRows(after, PAGE_ROWS, PAGE_BYTES);
        if (page.length === 0) break;
        const chunks: Buffer[] = [];
        let text = '';
        for (const row of page) {
          const line = `${resultLineFromRow(row)}\n`;
          let lineBytes: number;
          if (line.length >= CHUNK_BYTES) {
            // A long line is encoded once, on its own; its size is the buffer's.
            if (text !== '') chunks.push(Buffer.from(text));
            text = '';
            const data = Buffer.from(line);
            lineBytes = data.length;
            chunks.push(data);
          } else {
            lineBytes = Buffer.byteLength(line);
            text += line;
            if (text.length >= CHUNK_BYTES) {
              chunks.push(Buffer.from(text));
              text = '';
            }
          }
          bytes += lineBytes;
          if (row.state === 'succeeded') written.push(row.id);
          if (row.seq <= settledUpTo) prefixBytes = bytes;
        }
        if (text !== '') chunks.push(Buffer.from(text));
        after = page[page.length - 1]!.seq;
        await writeChunks(fd, chunks);
      }
      await syncFile(fd);
    } finally {
      await closeFile(fd);
    }
    await renameDurably(temp, target);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  const file = await stat(target);
  return {
    written,
    prefix: { seq: Math.max(settledUpTo, reuse?.seq ?? 0), bytes: prefixBytes, file: { ino: file.ino, size: file.size, mtimeMs: file.mtimeMs } },
  };
}
