// The SDK peer of the chat benchmark: the official `openai` SDK's client, every row sent with
// `chat.completions.create` under a semaphore of C, bodies kept in memory. What a user writes first with
// the SDK: no journal, no budget; the SDK's own retries are off so that each row is one request, as for
// gbatch and the naive peer.
import OpenAI from 'openai';
import { manifestRows, underSemaphore } from './peer-loop.mjs';

const [manifest, concurrency] = [process.argv[2], Number(process.argv[3])];
const client = new OpenAI({
  baseURL: process.env.GATEWAY_BASE_URL,
  apiKey: process.env.GATEWAY_API_KEY,
  maxRetries: 0,
});
const results = await underSemaphore(manifestRows(manifest), concurrency, async ({ id, kind, ...body }) => {
  try {
    return { id, ok: true, body: await client.chat.completions.create(body) };
  } catch (err) {
    return { id, ok: false, status: err?.status };
  }
});
const failed = results.filter((r) => !r.ok).length;
process.stdout.write(`${JSON.stringify({ rows: results.length, failed })}\n`);
if (failed > 0) process.exitCode = 1;
