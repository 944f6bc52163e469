// results.jsonl is derived from the journal: rebuilt whole, written to a temp file and renamed, so a
// crash can neither duplicate nor lose a line. Items whose line is on disk move to `downloaded`.
import { close as fsClose, fsync as fsFsync, open as fsOpen, write as fsWrite } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
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

const openFile = promisify(fsOpen);
const writeBytes = (fd: number, bytes: Buffer): Promise<number> =>
  new Promise((resolve, reject) => fsWrite(fd, bytes, (err, written) => (err ? reject(err) : resolve(written))));
const syncFile = promisify(fsFsync);
const closeFile = promisify(fsClose);

/**
 * Rewrites results.jsonl from the journal; returns the ids of items whose line is now durable.
 * Pages of rows are read between asynchronous writes, so a large rebuild never stalls the event loop
 * that serves the requests in flight. Each page is a consistent read; a row that becomes answered
 * behind the cursor is picked up by the next rebuild.
 */
export async function writeResultsFile(journal: Journal, outDir: string): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const target = resultsPath(outDir);
  const temp = join(outDir, `.results.jsonl.${process.pid}.part`);
  const fd = await openFile(temp, 'w');
  const newlyWritten: string[] = [];
  try {
    for (let after = 0; ;) {
      const rows = journal.answersAfter(ANSWERED, after, PAGE_ROWS);
      if (rows.length === 0) break;
      let text = '';
      for (const row of rows) {
        text += `${resultLineFromRow(row)}\n`;
        if (row.state === 'succeeded') newlyWritten.push(row.id);
      }
      after = rows[rows.length - 1]!.seq;
      await writeAll(fd, text);
    }
    await syncFile(fd);
  } finally {
    await closeFile(fd);
  }
  await rename(temp, target);
  return newlyWritten;
}

async function writeAll(fd: number, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length;) {
    offset += await writeBytes(fd, bytes.subarray(offset));
  }
}
