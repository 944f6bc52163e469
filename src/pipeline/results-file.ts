// results.jsonl is derived from the journal: rebuilt (the settled prefix of the file written last is
// copied, the rest read from the journal), written to a temp file, synced and renamed, so a crash can
// neither duplicate nor lose a line. Items whose line is on disk move to `downloaded`.
import { copyFile, mkdir, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { TERMINAL } from '../core/states.js';
import { closeFile, openFile, renameDurably, syncFile, writeChunks } from '../io/callback-fs.js';
import type { AnswerRow, Item, ItemError, Journal } from '../journal/index.js';

export function resultsPath(outDir: string): string {
  return join(outDir, 'results.jsonl');
}

/** One line in the OpenAI Batch output form, from an item as the journal returns it. */
export function resultLine(item: Item): string {
  return resultLineFromRow({
    seq: item.seq, id: item.id, state: item.state, response: item.response === null ? null : JSON.stringify(item.response),
    response_status: item.responseStatus, request_id: item.requestId,
    last_error: item.lastError === null ? null : JSON.stringify(item.lastError),
  });
}

/** One results.jsonl line from the journal's raw row: the stored body text is spliced in as it is. */
export function resultLineFromRow(row: AnswerRow): string {
  if (row.state === 'rejected') {
    const error = row.last_error === null ? null : (JSON.parse(row.last_error) as ItemError);
    return JSON.stringify({
      id: `batch_req_${row.seq}`, custom_id: row.id,
      response: { status_code: error?.status ?? 400, request_id: null, body: { error } }, error: null,
    });
  }
  return `{"id":"batch_req_${row.seq}","custom_id":${JSON.stringify(row.id)},"response":{"status_code":${row.response_status ?? 200},` +
    `"request_id":${JSON.stringify(row.request_id)},"body":${row.response ?? 'null'}},"error":null}`;
}

const PAGE_ROWS = 500;
const ANSWERED = ['succeeded', 'downloaded', 'rejected'] as const;
/** States in which an item's results line can no longer appear, vanish or change during a run. */
const SETTLED = ['succeeded', ...TERMINAL] as const;

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
 * from the journal in pages between asynchronous writes, so a rebuild never stalls the event loop
 * that serves the requests in flight.
 */
export async function writeResultsFile(journal: Journal, outDir: string, previous?: SettledPrefix): Promise<ResultsRebuild> {
  await mkdir(outDir, { recursive: true });
  const target = resultsPath(outDir);
  const temp = join(outDir, `.results.jsonl.${process.pid}.part`);
  const settledUpTo = (journal.firstUnsettledAnswerSeq(SETTLED) ?? Number.MAX_SAFE_INTEGER) - 1;
  const reuse = await reusablePrefix(target, previous);
  if (reuse) {
    await copyFile(target, temp);
    await truncate(temp, reuse.bytes);
  }
  const fd = await openFile(temp, reuse ? 'a' : 'w');
  const written: string[] = [];
  let bytes = reuse?.bytes ?? 0;
  let prefixBytes = bytes;
  try {
    for (let after = reuse?.seq ?? 0; ;) {
      const rows = journal.answersAfter(ANSWERED, after, PAGE_ROWS);
      if (rows.length === 0) break;
      let text = '';
      let pageBytes = 0;
      for (const row of rows) {
        const line = `${resultLineFromRow(row)}\n`;
        text += line;
        pageBytes += Buffer.byteLength(line);
        if (row.state === 'succeeded') written.push(row.id);
        if (row.seq <= settledUpTo) prefixBytes = bytes + pageBytes;
      }
      after = rows[rows.length - 1]!.seq;
      const data = Buffer.from(text);
      await writeChunks(fd, [data]);
      bytes += data.length;
    }
    await syncFile(fd);
  } finally {
    await closeFile(fd);
  }
  await renameDurably(temp, target);
  const file = await stat(target);
  return {
    written,
    prefix: { seq: Math.max(settledUpTo, reuse?.seq ?? 0), bytes: prefixBytes, file: { ino: file.ino, size: file.size, mtimeMs: file.mtimeMs } },
  };
}
