// The naive peer of the chat benchmark: read the manifest, POST every row with fetch under a
// semaphore of C, keep the bodies in memory. No journal, no retries, no budget: the floor to compare with.
import { manifestRows, underSemaphore } from './peer-loop.mjs';

const [manifest, concurrency] = [process.argv[2], Number(process.argv[3])];
const base = process.env.GATEWAY_BASE_URL;
const headers = { authorization: `Bearer ${process.env.GATEWAY_API_KEY}`, 'content-type': 'application/json' };
const results = await underSemaphore(manifestRows(manifest), concurrency, async ({ id, kind, ...body }) => {
  const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { id, status: res.status, body: await res.json() };
});
const failed = results.filter((r) => r.status !== 200).length;
process.stdout.write(`${JSON.stringify({ rows: results.length, failed })}\n`);
