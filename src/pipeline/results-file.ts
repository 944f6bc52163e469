// results.jsonl is derived from the journal: rebuilt whole, written to a temp file and renamed, so a
// crash can neither duplicate nor lose a line. Items whose line is on disk move to `downloaded`.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
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

/** Rewrites results.jsonl from the journal; returns the ids of items whose line is now durable. */
export function writeResultsFile(journal: Journal, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const target = resultsPath(outDir);
  const temp = join(outDir, `.results.jsonl.${process.pid}.part`);
  const fd = openSync(temp, 'w');
  const newlyWritten: string[] = [];
  try {
    let buffer = '';
    for (const row of journal.iterateAnswers(['succeeded', 'downloaded', 'rejected'])) {
      buffer += `${resultLineFromRow(row)}\n`;
      if (row.state === 'succeeded') newlyWritten.push(row.id);
      if (buffer.length > 1 << 20) {
        writeSync(fd, buffer);
        buffer = '';
      }
    }
    if (buffer) writeSync(fd, buffer);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
  return newlyWritten;
}
