// The SDK peer of the chat benchmark: the official `openai` SDK's client, every row sent with
// `chat.completions.create` under a semaphore of C, bodies kept in memory. What a user writes first with
// the SDK: no journal, no budget; the SDK's own retries are off so that each row is one request, as for
// gbatch and the naive peer.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';

const [manifest, concurrency] = [process.argv[2], Number(process.argv[3])];
const client = new OpenAI({
  baseURL: process.env.GATEWAY_BASE_URL,
  apiKey: process.env.GATEWAY_API_KEY,
  maxRetries: 0,
});
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
    try {
      results[i] = { id, ok: true, body: await client.chat.completions.create(body) };
    } catch (err) {
      results[i] = { id, ok: false, status: err?.status };
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const failed = results.filter((r) => !r.ok).length;
process.stdout.write(`${JSON.stringify({ rows: rows.length, failed })}\n`);
if (failed > 0) process.exitCode = 1;
