// Issue 10, item 8: results.jsonl is rebuilt line by line from pages bounded by bytes, so bodies whose
// sum is past V8's longest string (~512 MiB) still rebuild. The journal is a fake that hands out one
// 54 MB body ten times (the same string: the test itself stays small); the file is real.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Journal, ResultRow } from '../../src/journal/index.js';
import { PAGE_BYTES, resultsPath, rowsInPage, writeResultsFile } from '../../src/pipeline/results-file.js';
import { CAN_MOUNT, mountTmpfs } from '../e2e/helpers/tmpfs.js';
import { useTempDir } from '../journal/helpers.js';

const tmp = useTempDir();

describe('rowsInPage', () => {
  it('takes rows while their bytes fit, and always at least one', () => {
    expect(rowsInPage([10, 10, 10], 25)).toBe(2);
    expect(rowsInPage([100, 1], 25)).toBe(1);
    expect(rowsInPage([], 25)).toBe(0);
    expect(rowsInPage(Array(500).fill(100), PAGE_BYTES)).toBe(500);
  });
});

describe('writeResultsFile with huge bodies', () => {
  it('rebuilds ten 54 MB answers (540 MB in all, past the ~536.9 M characters of the longest V8 string) without one string of them, a page per body', async () => {
    const bodyText = `{"content":"${'x'.repeat(54_000_000)}"}`;
    const rows: ResultRow[] = Array.from({ length: 10 }, (_, i) => ({
      seq: i + 1, id: `big-${i}`, kind: 'chat', state: 'downloaded', response: bodyText, response_status: 200, request_id: null,
      last_error: null, task_id: null, final_resolution: null, output_path: null, sha256: null, bytes: null,
    }));
    const pageSizes: number[] = [];
    const after = (seq: number, limit: number) => rows.filter((r) => r.seq > seq).slice(0, limit);
    const journal = {
      results: {
        sizes: (seq: number, limit: number) => after(seq, limit).map((r) => r.response!.length),
        page: (seq: number, limit: number) => {
          pageSizes.push(limit);
          return after(seq, limit);
        },
        firstOpenSeq: () => undefined,
      },
    } as unknown as Journal;
    // In memory when it can be (a tmpfs): the disk's writeback of 540 MB is not what is tested.
    const out = join(CAN_MOUNT ? mountTmpfs('700m').dir : tmp.dir(), 'out');

    await writeResultsFile(journal, out);

    expect(pageSizes).toEqual(Array(10).fill(1));
    const lineBytes = (seq: number) =>
      `{"id":"batch_req_${seq}","custom_id":"big-${seq - 1}","response":{"status_code":200,"request_id":null,"body":${bodyText}},"error":null}\n`.length;
    const total = rows.reduce((sum, r) => sum + lineBytes(r.seq), 0);
    expect(total).toBeGreaterThan(2 ** 29); // more than any one string can hold
    expect(statSync(resultsPath(out)).size).toBe(total);
    // The last line is whole: its end is where it belongs.
    const fd = openSync(resultsPath(out), 'r');
    const tail = Buffer.alloc(64);
    readSync(fd, tail, 0, 64, total - 64);
    closeSync(fd);
    expect(tail.toString()).toMatch(/x"}},"error":null}\n$/);
  }, 60_000);
});
