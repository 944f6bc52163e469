// Issue 10, item 8: results.jsonl is rebuilt line by line from pages bounded by bytes, so bodies whose
// sum is past V8's longest string (~512 MiB) still rebuild. The journal is a fake that hands out one
// 54 MB body ten times (the same string: the test itself stays small); the file is real.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultRow } from '../../../src/journal/index.js';
import { resultsPath, takePage, writeResultsFile } from '../../../src/pipeline/results/results-file.js';
import { CAN_MOUNT, mountTmpfs } from '../../helpers/tmpfs.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';
import { storeOverResults } from '../../helpers/journal-raw.js';
import { resultRow } from '../../helpers/result-row.js';

const tmp = useTempDir();

/** Rows of the given body sizes, handed out lazily; `pulled` counts what the reader took. */
function lazyRows(sizes: number[], from = 0) {
  const state = { pulled: 0, closed: false };
  function* rows(): Generator<ResultRow> {
    try {
      for (const [i, size] of sizes.entries()) {
        if (i < from) continue;
        state.pulled++;
        yield resultRow({ seq: i + 1, id: `r${i}`, response: 'x'.repeat(size) });
      }
    } finally {
      state.closed = true;
    }
  }
  return { rows: rows(), state };
}

describe('takePage', () => {
  it('pulls rows until their bodies reach the page size (at least one), then stops pulling', () => {
    const small = lazyRows([10, 10, 10, 10]);
    expect(takePage(small.rows, 25).map((r) => r.id)).toEqual(['r0', 'r1', 'r2']);
    expect(small.state).toEqual({ pulled: 3, closed: true });
    const huge = lazyRows([100, 1]);
    expect(takePage(huge.rows, 25).map((r) => r.id)).toEqual(['r0']);
    expect(huge.state.pulled).toBe(1);
    expect(takePage(lazyRows([]).rows, 25)).toEqual([]);
    expect(takePage(lazyRows([1, 1]).rows, 25)).toHaveLength(2);
  });
});

describe('writeResultsFile with huge bodies', () => {
  it('rebuilds ten 54 MB answers (540 MB in all, past the ~536.9 M characters of the longest V8 string) without one string of them, a page per body', async () => {
    const bodyText = `{"content":"${'x'.repeat(54_000_000)}"}`;
    const rows: ResultRow[] = Array.from({ length: 10 }, (_, i) =>
      resultRow({ seq: i + 1, id: `big-${i}`, response: bodyText }),
    );
    // What each page pulled from the journal before it was written.
    const pageSizes: number[] = [];
    const journal = {
      results: {
        iterate: function* (seq: number, limit: number) {
          const page = pageSizes.push(0) - 1;
          for (const row of rows.filter((r) => r.seq > seq).slice(0, limit)) {
            pageSizes[page]!++;
            yield row;
          }
        },
        firstOpenSeq: () => undefined,
      },
    };
    // In memory when it can be (a tmpfs): the disk's writeback of 540 MB is not what is tested.
    const out = join(CAN_MOUNT ? mountTmpfs('700m').dir : tmp.dir(), 'out');

    await writeResultsFile(storeOverResults(journal.results), out);

    expect(pageSizes).toEqual([...Array(10).fill(1), 0]); // one body per page, then the empty end
    const lineBytes = (seq: number) =>
      `{"id":"batch_req_${seq}","custom_id":"big-${seq - 1}","response":{"status_code":200,"request_id":null,"body":${bodyText}},"error":null}\n`
        .length;
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
