// --model-limit against the simulator: a limited model never has more submissions in flight than its
// limit, while rows of other models go on meanwhile (no row waits behind another model's limit).
// The simulator answers each request after LATENCY_MS, so submissions in flight at once show as
// arrivals less than LATENCY_MS apart.
import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import type { RequestRecord, Simulator } from '../../../src/sim/index.js';
import { parseModelLimits } from '../../../src/core/model-limits.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { FastClock } from '../../helpers/fast-clock.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { runInProcess } from '../../helpers/run.js';
import { duplicates, KEY, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

const LATENCY_MS = 500;

function mixedManifest(ws: Workspace): string {
  // Every video row first: a claim loop that let them hold the lane would keep the chat rows behind them.
  const videos = Array.from({ length: 8 }, (_, i) =>
    videoRow(`v${i}`, `A lighthouse, take ${i}`, { model: 'video-pro', resolution: '720p' }),
  );
  const chats = Array.from({ length: 4 }, (_, i) => chatRow(`c${i}`, `Name a river, ${i}`));
  return writeJsonl(ws.path('rows.jsonl'), [...videos, ...chats]);
}

function modelPosts(sim: Simulator, model: string): RequestRecord[] {
  return sim.ledger.requests
    .filter(
      (r) => r.method === 'POST' && r.status !== null && (r.body as { model?: string } | undefined)?.model === model,
    )
    .sort((a, b) => a.at - b.at);
}

/** The most requests whose time at the simulator overlapped: arrivals less than LATENCY_MS apart. */
function mostInFlight(requests: readonly RequestRecord[]): number {
  return Math.max(0, ...requests.map((r) => requests.filter((o) => o.at <= r.at && o.at > r.at - LATENCY_MS).length));
}

async function expectLimited(
  sim: Simulator,
  run: { code: number | null; stdout: string; stderr: string },
): Promise<void> {
  expect(run.code, run.stderr).toBe(0);
  const videos = modelPosts(sim, 'video-pro');
  const chats = modelPosts(sim, 'chat-small');
  expect(videos).toHaveLength(8);
  expect(chats).toHaveLength(4);
  expect(mostInFlight(videos)).toBeLessThanOrEqual(2);
  // The chat rows were answered while video-pro rows still waited for their model's slots.
  expect(Math.max(...chats.map((c) => c.at))).toBeLessThan(videos[videos.length - 1]!.at);
  expect(duplicates(sim.ledger)).toEqual({});
}

test.skipIf(!BUILT)(
  '--model-limit video-pro=2: never more than 2 video-pro submissions in flight, chat rows go on meanwhile',
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { latencyMs: LATENCY_MS } });
    const manifest = mixedManifest(ws);
    const run = await runCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--concurrency',
        '4',
        '--model-limit',
        'video-pro=2',
        '--poll-interval',
        '0.05',
        '--quiet',
      ],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    await expectLimited(sim, run);
  },
);

test.skipIf(!BUILT)('a job file\'s "model-limit" option limits the model the same way', async () => {
  const ws = workspace();
  const sim = await startSim({ faults: { latencyMs: LATENCY_MS } });
  mixedManifest(ws);
  const job = ws.path('night.json');
  writeFileSync(
    job,
    JSON.stringify({
      name: 'night',
      manifest: 'rows.jsonl',
      options: { concurrency: 4, 'model-limit': 'video-pro=2', 'poll-interval': 0.05 },
    }),
  );
  const run = await runCli(['run', job, '--state', ws.state, '--out', ws.out, '--quiet'], {
    cwd: ws.dir,
    env: gatewayEnv(sim.baseUrl, KEY),
  });
  await expectLimited(sim, run);
});

test.skipIf(!BUILT)(
  'a bad limit is refused with exit 2 and one line naming the flag or the job file, before anything is sent',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = mixedManifest(ws);
    const env = gatewayEnv(sim.baseUrl, KEY);
    const flag = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--model-limit', 'video-pro=2,chat-small=0rpm'],
      { env },
    );
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim()).toMatch(
      /^gbatch run: Expected `--model-limit` rpm to be an integer from 1 and up for `chat-small`, got `0rpm` in `chat-small=0rpm`$/,
    );

    const job = ws.path('night.json');
    writeFileSync(
      job,
      JSON.stringify({
        name: 'night',
        manifest: 'rows.jsonl',
        options: { 'model-limit': ['video-pro=2', 'video-pro=3'] },
      }),
    );
    const fromFile = await runCli(['run', job, '--state', ws.state, '--out', ws.out], { cwd: ws.dir, env });
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr.trim()).toMatch(
      /night\.json: Expected job option 'model-limit' to give the concurrency of `video-pro` once, got `2` and `3`$/,
    );
    expect(sim.ledger.requests).toHaveLength(0);
  },
);

test('a rate: chat-small=6rpm spaces its requests 10 s apart at the gateway while video rows go on at once', async () => {
  // One fast clock (10x) for the runner and the simulator: 10 s pass in a second. The margin below is for
  // a loaded machine: the time from leaving to arriving (the simulator shares this process) is not paced.
  const clock = new FastClock(10);
  const ws = workspace();
  const sim = await startSim({ clock });
  const chats = Array.from({ length: 5 }, (_, i) => chatRow(`c${i}`, `Name a lake, ${i}`));
  const videos = Array.from({ length: 4 }, (_, i) => videoRow(`v${i}`, `A harbour, take ${i}`));
  const manifest = writeJsonl(ws.path('rows.jsonl'), [...chats, ...videos]);
  const limits = parseModelLimits(['chat-small=6rpm']);
  if (typeof limits === 'string') throw new Error(limits);

  const result = await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    clock,
    settings: { concurrency: 8, modelLimits: limits, pollIntervalMs: 500 },
  });

  expect(result.exitCode).toBe(0);
  const chatAts = modelPosts(sim, 'chat-small').map((r) => r.at);
  expect(chatAts).toHaveLength(5);
  // Unlimited, the five would arrive together; the pace leaves them about 10 s apart (half of it asserted).
  for (let i = 1; i < chatAts.length; i++)
    expect(chatAts[i]! - chatAts[i - 1]!, `chat calls at ${chatAts.join(', ')}`).toBeGreaterThanOrEqual(5000);
  // Every video submission left before the last chat call: the rate held the chat rows only.
  const videoAts = modelPosts(sim, 'video-mini').map((r) => r.at);
  expect(videoAts).toHaveLength(4);
  expect(Math.max(...videoAts)).toBeLessThan(chatAts[chatAts.length - 1]!);
  expect(duplicates(sim.ledger)).toEqual({});
});
