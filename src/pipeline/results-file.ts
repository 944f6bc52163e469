// results.jsonl is derived from the journal: rebuilt whole, written to a temp file and renamed, so a
// crash can neither duplicate nor lose a line. Items whose line is on disk move to `downloaded`.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Item, Journal } from '../journal/index.js';

const TEXT_KINDS = ['chat', 'responses'] as const;

export function resultsPath(outDir: string): string {
  return join(outDir, 'results.jsonl');
}

/** One line in the OpenAI Batch output form. */
export function resultLine(item: Item): string {
  const answered = item.state === 'rejected';
  const line = answered
    ? {
      id: `batch_req_${item.seq}`,
      custom_id: item.id,
      response: { status_code: item.lastError?.status ?? 400, request_id: null, body: { error: item.lastError } },
      error: null,
    }
    : {
      id: `batch_req_${item.seq}`,
      custom_id: item.id,
      response: { status_code: item.responseStatus ?? 200, request_id: item.requestId, body: item.response },
      error: null,
    };
  return JSON.stringify(line);
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
    for (const item of journal.iterate({ kinds: TEXT_KINDS, states: ['succeeded', 'downloaded', 'rejected'] })) {
      buffer += `${resultLine(item)}\n`;
      if (item.state === 'succeeded') newlyWritten.push(item.id);
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
