// The naive peer of the chat benchmark: read the manifest, POST every row with fetch under a
// semaphore of C, keep the bodies in memory. No journal, no retries, no budget: the floor to compare with.
import { readFileSync } from 'node:fs';

const [manifest, concurrency] = [process.argv[2], Number(process.argv[3])];
const base = process.env.GATEWAY_BASE_URL;
const headers = { authorization: `Bearer ${process.env.GATEWAY_API_KEY}`, 'content-type': 'application/json' };
const rows = readFileSync(manifest, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const results = new Array(rows.length);
let next = 0;
async function worker() {
  while (next < rows.length) {
    const i = next++;
    const { id, kind, ...body } = rows[i];
    const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
    results[i] = { id, status: res.status, body: await res.json() };
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const failed = results.filter((r) => r.status !== 200).length;
process.stdout.write(`${JSON.stringify({ rows: rows.length, failed })}\n`);
