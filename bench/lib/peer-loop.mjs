// What both chat peers share: the manifest's rows in memory, and `concurrency` workers taking the next row each
// as soon as they are free (a semaphore of C, as a user writes it), each row's result kept in order.
import { readFileSync } from 'node:fs';

export function manifestRows(manifest) {
  return readFileSync(manifest, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Runs `send(row)` for every row, `concurrency` at a time; resolves with the results in row order. */
export async function underSemaphore(rows, concurrency, send) {
  const results = new Array(rows.length);
  let next = 0;
  async function worker() {
    while (next < rows.length) {
      const i = next++;
      results[i] = await send(rows[i]);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
