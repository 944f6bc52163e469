// results.jsonl is derived from the journal. A run's first rebuild writes the whole file to a temp file,
// synced and renamed, so a crash can neither duplicate nor lose a line. Each later rebuild of the same
// run keeps the settled prefix of the file it wrote last in place and rewrites only what follows it:
// truncated to the prefix, appended, synced (issue 11: each line is written about once, not once per
// rebuild). A crash or a failed write in the middle of that leaves the prefix and a torn tail, which the
// next run's first rebuild replaces. Items whose line is on disk move to `downloaded`.
import { randomBytes } from 'node:crypto';
import { ftruncate } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { makeDirectories } from '../../io/make-directories.js';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { closeFile, openFile, renameDurably, syncFile, writeChunks } from '../../io/callback-fs.js';
import type { ChunkWriter } from '../../io/output-store.js';
import type { JournalRunReads } from '../../journal/index.js';
import { fileIdentity, reusablePrefix, type SettledPrefix } from './settled-prefix.js';
import { resultLineFromRow } from './results-line.js';

const truncateFile = promisify(ftruncate);

export { takePage } from '../../journal/result-row.js';

export function resultsPath(outDir: string): string {
  return join(outDir, 'results.jsonl');
}

export { resultLine, resultLineFromRow } from './results-line.js';

const PAGE_ROWS = 500;
/** A page read from the journal holds at most this many bytes of bodies (or one row, whatever its size). */
export const PAGE_BYTES = 8 * 1024 * 1024;
/** Short lines are joined into chunks of about this size before they are written. */
const CHUNK_BYTES = 1024 * 1024;

export interface ResultsRebuild {
  /** Ids of items whose line is now durable and that were `succeeded` (not yet `downloaded`). */
  written: string[];
  prefix: SettledPrefix;
}

/**
 * Brings results.jsonl up to date with the journal. Without a reusable prefix (`previous`), the whole
 * file is written to a temp file renamed over the old one; with one, the file is truncated to that
 * prefix and the rest appended in place. Rows are read from the journal in pages bounded by rows and
 * by bytes (rows are pulled one by one), and written line by line (short lines in chunks of about
 * 1 MiB), so neither a page nor a chunk grows with the bodies' total size. A failed full write removes
 * the temp file and leaves the previous results.jsonl as it was; a failed append truncates the file
 * back to its prefix.
 */
export async function writeResultsFile(
  journal: JournalRunReads,
  outDir: string,
  previous?: SettledPrefix,
): Promise<ResultsRebuild> {
  await makeDirectories(outDir);
  const target = resultsPath(outDir);
  const settledUpTo = ((await journal.firstOpenSeq()) ?? Number.MAX_SAFE_INTEGER) - 1;
  const reuse = await reusablePrefix(target, previous, settledUpTo);
  const lines = reuse
    ? await appendInPlace(journal, target, reuse, settledUpTo)
    : await writeWhole(journal, outDir, target, settledUpTo);
  const file = await stat(target);
  const settled = await settledNow(journal, Math.max(settledUpTo, reuse?.seq ?? 0), lines);
  // Not past the last line in the file: rows a later ingest adds (higher seqs) must still get theirs.
  const seq = Math.min(settled.seq, lines.lastSeq ?? reuse?.seq ?? 0);
  return {
    written: lines.written,
    prefix: { seq, bytes: settled.bytes, file: fileIdentity(file) },
  };
}

/** Lines past the settled part tracked for settledNow(); past this many, the prefix stays where it was. */
const TRACKED_LINES = 200_000;

export interface LinesWritten {
  written: string[];
  /** Bytes of the file holding lines of items up to `settledUpTo` only. */
  prefixBytes: number;
  /** The seq of each line written past `settledUpTo`, and the file's size after it (undefined: too many). */
  past: { seqs: number[]; ends: number[] } | undefined;
  /** The seq of the last line written (undefined: none). */
  lastSeq: number | undefined;
}

/**
 * How far the file is settled once written: items answered while the rebuild ran may have settled the
 * rows past the prefix it started from. The prefix grows over the lines written past it, in order, up
 * to the first item now settled whose line is not in the file (answered after the rebuild read past it,
 * or changed since), or up to the first item still open. The next rebuild then rewrites only the rest.
 */
async function settledNow(
  journal: JournalRunReads,
  settledUpTo: number,
  lines: LinesWritten,
): Promise<{ seq: number; bytes: number }> {
  const start = { seq: settledUpTo, bytes: lines.prefixBytes };
  const past = lines.past;
  if (!past || past.seqs.length === 0) return start;
  const frontier = ((await journal.firstOpenSeq()) ?? Number.MAX_SAFE_INTEGER) - 1;
  let i = 0;
  let bytes = lines.prefixBytes;
  // Stops before the first item whose line differs between the file and the journal, or at the frontier.
  const end = (seq: number) => ({
    seq: Math.min(frontier, (past.seqs[i] ?? Number.MAX_SAFE_INTEGER) - 1, seq - 1),
    bytes,
  });
  if (frontier <= settledUpTo) return start;
  for (let after = settledUpTo; ;) {
    const page = await journal.resultRows(after, PAGE_ROWS, PAGE_BYTES);
    if (page.length === 0) return end(Number.MAX_SAFE_INTEGER);
    for (const row of page) {
      if (row.seq > frontier || past.seqs[i] !== row.seq) return end(row.seq);
      bytes = past.ends[i]!;
      i++;
    }
    after = page[page.length - 1]!.seq;
  }
}

async function writeWhole(
  journal: JournalRunReads,
  outDir: string,
  target: string,
  settledUpTo: number,
): Promise<LinesWritten> {
  const temp = join(outDir, `.results.jsonl.${process.pid}.${randomBytes(4).toString('hex')}.part`);
  try {
    const fd = await openFile(temp, 'w');
    let lines: LinesWritten;
    try {
      lines = await writeLines(journal, fd, { seq: 0, bytes: 0 }, settledUpTo);
      await syncFile(fd);
    } finally {
      await closeFile(fd);
    }
    await renameDurably(temp, target);
    return lines;
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}

async function appendInPlace(
  journal: JournalRunReads,
  target: string,
  reuse: SettledPrefix,
  settledUpTo: number,
): Promise<LinesWritten> {
  // 'a': every write goes to the end, which the truncation has just put at the prefix.
  const fd = await openFile(target, 'a');
  try {
    await truncateFile(fd, reuse.bytes);
    const lines = await writeLines(journal, fd, reuse, settledUpTo);
    await syncFile(fd);
    return lines;
  } catch (err) {
    await truncateFile(fd, reuse.bytes).catch(() => undefined);
    throw err;
  } finally {
    await closeFile(fd);
  }
}

/**
 * Appends to `fd` (a file, or a writer of an object) the line of every item after `from.seq` that has one;
 * `from.bytes` is the output's size before.
 */
export async function writeLines(
  journal: JournalRunReads,
  fd: number | ChunkWriter,
  from: { seq: number; bytes: number },
  settledUpTo: number,
): Promise<LinesWritten> {
  const written: string[] = [];
  let bytes = from.bytes;
  let prefixBytes = bytes;
  let past: LinesWritten['past'] = { seqs: [], ends: [] };
  let lastSeq: number | undefined;
  for (let after = from.seq; ;) {
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
      else if (past && past.seqs.length < TRACKED_LINES) {
        past.seqs.push(row.seq);
        past.ends.push(bytes);
      } else past = undefined;
    }
    if (text !== '') chunks.push(Buffer.from(text));
    after = page[page.length - 1]!.seq;
    lastSeq = after;
    await (typeof fd === 'number' ? writeChunks(fd, chunks) : fd(chunks));
  }
  return { written, prefixBytes, past, lastSeq };
}
