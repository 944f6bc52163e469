// A file past its expires_at is gone, bytes and all: an upload by its expires_after, a batch's output, error
// and video files by the batch's output_expires_after. The server runs in this process on a clock the test
// moves; the simulator and the SQLite catalog are real.
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILTIN_PRICING } from '../../../src/core/pricing.js';
import { gatewayAccess } from '../../../src/job/job.js';
import { startServe as startServeHere } from '../../../src/serve/server.js';
import { clientTokens } from '../../../src/serve/tokens.js';
import { checkedFetch } from '../../helpers/openai-contract.js';
import { chatLine, TOKEN_A, videoLine, writeLines } from '../../helpers/serve.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const HOUR_MS = 3_600_000;

/** serve in this process, its clock `later` ms ahead of the system's; `ended(id)` resolves at the batch's end. */
async function serveHere(gateway: string, data: string) {
  const clock = { later: 0 };
  const ends = new Map<string, () => void>();
  const ended = new Set<string>();
  const server = await startServeHere({
    host: '127.0.0.1',
    port: 0,
    dataDir: data,
    journal: undefined,
    pricing: BUILTIN_PRICING,
    pricingFile: undefined,
    concurrency: 2,
    pollIntervalS: 0.05,
    retryFailed: undefined,
    retryBackoffS: undefined,
    budgetUsd: undefined,
    rpm: undefined,
    maxFileBytes: 1 << 20,
    access: gatewayAccess({}, { GATEWAY_BASE_URL: gateway, GATEWAY_API_KEY: KEY }),
    allowedHosts: [],
    tokens: clientTokens([TOKEN_A]),
    env: {},
    log: (line) => {
      const end = /^(batch_\w+): (completed|expired|cancelled):/.exec(line);
      if (!end) return;
      ended.add(end[1]!);
      ends.get(end[1]!)?.();
    },
    now: () => Date.now() + clock.later,
  });
  onTestFinished(() => server.close());
  const openai = new OpenAI({ baseURL: server.url, apiKey: TOKEN_A, maxRetries: 0, fetch: checkedFetch() });
  const end = (id: string): Promise<void> =>
    ended.has(id) ? Promise.resolve() : new Promise((resolve) => ends.set(id, resolve));
  return { openai, clock, end };
}

const listedIds = async (openai: OpenAI): Promise<string[]> => (await openai.files.list()).data.map((f) => f.id);

describe('gbatch serve: expired files', () => {
  it('deletes an upload past the expires_at of its expires_after, with its bytes', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const { openai, clock } = await serveHere(sim.baseUrl, ws.path('data'));
    const input = writeLines(ws.path('in.jsonl'), [chatLine('a', 'hi')]);
    const expiring = await openai.files.create({
      file: createReadStream(input),
      purpose: 'batch',
      expires_after: { anchor: 'created_at', seconds: 3600 },
    });
    const kept = await openai.files.create({ file: createReadStream(input), purpose: 'batch' });
    const bytes = join(ws.path('data'), 'files', `${expiring.id}.jsonl`);
    expect(expiring.expires_at).toBe(expiring.created_at + 3600);
    expect(await listedIds(openai)).toEqual([kept.id, expiring.id]);
    expect(existsSync(bytes)).toBe(true);

    clock.later = HOUR_MS - 60_000; // a minute before its expires_at: still there
    expect(await listedIds(openai)).toEqual([kept.id, expiring.id]);
    clock.later = HOUR_MS + 1000;
    expect(await listedIds(openai)).toEqual([kept.id]);
    await expect(openai.files.retrieve(expiring.id)).rejects.toMatchObject({ status: 404 });
    await expect(openai.files.content(expiring.id)).rejects.toMatchObject({ status: 404 });
    expect(existsSync(bytes)).toBe(false);
    expect(readdirSync(join(ws.path('data'), 'files'))).toEqual([`${kept.id}.jsonl`]);
  });

  it("deletes a batch's output, error and video files past output_expires_after, the videos' bytes too", async () => {
    const sim = await startSim({ taskSeconds: 0.05 });
    const ws = workspace('gbatch-serve-');
    const { openai, clock, end } = await serveHere(sim.baseUrl, ws.path('data'));
    // video-mini 480p, 2 s may bill $0.186 and bills ~$0.033: $0.19 sends one of the two, the other ends
    // budget_exceeded: an output, an error and a video file.
    const input = writeLines(ws.path('in.jsonl'), [videoLine('clip', 'a red kite'), videoLine('dear', 'a blue kite')]);
    const file = await openai.files.create({ file: createReadStream(input), purpose: 'batch' });
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/video/generations' as '/v1/chat/completions',
      completion_window: '24h',
      output_expires_after: { anchor: 'created_at', seconds: 3600 },
      metadata: { budget_usd: '0.19' },
    });
    await end(created.id);
    const batch = await openai.batches.retrieve(created.id);
    const output = await openai.files.retrieve(batch.output_file_id!);
    const errors = await openai.files.retrieve(batch.error_file_id!);
    const videoId = (
      JSON.parse((await (await openai.files.content(output.id)).text()).trim()) as {
        response: { body: { file_id: string } };
      }
    ).response.body.file_id;
    const video = await openai.files.retrieve(videoId);
    for (const f of [output, errors, video]) expect(f.expires_at).toBe(f.created_at + 3600);
    const outDir = join(ws.path('data'), 'out', created.id);
    const videoBytes = () =>
      readdirSync(outDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.mp4'));
    expect(videoBytes()).toHaveLength(1);
    const derived = [output.id, errors.id, videoId];
    expect(await listedIds(openai)).toEqual(expect.arrayContaining([...derived, file.id]));

    clock.later = HOUR_MS + 1000;
    for (const id of derived) await expect(openai.files.retrieve(id)).rejects.toMatchObject({ status: 404 });
    await expect(openai.files.content(videoId)).rejects.toMatchObject({ status: 404 });
    expect(await listedIds(openai)).toEqual([file.id]);
    expect(videoBytes()).toEqual([]);
    // The batch keeps its file ids, as OpenAI's does once its files expired.
    expect(await openai.batches.retrieve(created.id)).toMatchObject({ output_file_id: output.id });
  });
});
