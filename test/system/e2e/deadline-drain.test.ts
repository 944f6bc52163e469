// --drain: after the deadline nothing new is submitted, yet tasks already paid for are still polled and
// downloaded, within the drain, in the same run. A real `gbatch run` against the simulator; the ledger
// is the witness of what was sent and when.

import { expect, test } from 'vitest';
import type { RequestRecord } from '../../../src/sim/index.js';
import { BUILT, gatewayEnv, runCli, stdoutJson, type CliResult } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, posts, startSim } from '../../helpers/sim.js';
import { sha256File, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

/** The deadline the run resolved, as it printed it at start (`deadline: … (in 1s; <ISO>)`). */
function deadlineOf(run: CliResult): number {
  const iso = /^\[gbatch\] deadline: .*; (\d{4}-\d{2}-\d{2}T[^)]+)\)$/m.exec(run.stderr)?.[1];
  expect(iso, run.stderr).toBeDefined();
  return Date.parse(iso!);
}

const polls = (requests: readonly RequestRecord[]): RequestRecord[] =>
  requests.filter(
    (r) => r.method === 'GET' && r.path.startsWith('/v1/video/generations/') && !r.path.endsWith('/content'),
  );

test.skipIf(!BUILT)(
  '--deadline 1s --drain 30s: tasks that finish after the deadline are downloaded in the same run, exit 0',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 2.5 });
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'Clouds over mountains'),
      videoRow('v2', 'Boats in a marina'),
    ]);
    const run = await runCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--poll-interval',
        '0.2',
        '--deadline',
        '1s',
        '--drain',
        '30s',
        '--json',
        '--quiet',
      ],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );

    expect(run.code, run.stderr).toBe(0);
    const deadline = deadlineOf(run);
    expect(run.stderr).toMatch(
      /deadline reached .*tasks in flight are still polled and downloaded for up to 30s \(--drain\)/,
    );
    expect(stdoutJson(run).counts.downloaded).toBe(2);
    for (const id of ['v1', 'v2']) expect(sha256File(ws.path('out', `${id}.mp4`))).toBe(SIM_VIDEO_SHA256);
    expect(readJournal(ws.state).items.every((i) => i.state === 'downloaded')).toBe(true);
    // Both were submitted before the deadline, finished after it, and were seen and fetched after it.
    expect(posts(sim.ledger)).toBe(2);
    expect(duplicates(sim.ledger)).toEqual({});
    expect(sim.ledger.tasks.every((t) => t.submittedAt < deadline && t.endsAt > deadline)).toBe(true);
    const contents = sim.ledger.requests.filter((r) => r.path.endsWith('/content'));
    expect(contents.length).toBeGreaterThanOrEqual(2);
    expect(contents.every((r) => r.at > deadline)).toBe(true);
  },
);

test.skipIf(!BUILT)(
  '--drain shorter than the tasks: polls go on after the deadline and none is sent after the drain; exit 75',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 30 });
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'A lighthouse in fog'),
      videoRow('v2', 'Rain on a window'),
    ]);
    const DRAIN_MS = 1_500;
    const run = await runCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--poll-interval',
        '0.1',
        '--deadline',
        '1s',
        '--drain',
        '1.5s',
        '--json',
        '--quiet',
      ],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );

    expect(run.code, run.stderr).toBe(75);
    expect(stdoutJson(run).stop_reason).toBe('deadline');
    expect(run.stderr).toMatch(/drain over \(1\.5s after the deadline\): no more polls or downloads/);
    const deadline = deadlineOf(run);
    const seen = polls(sim.ledger.requests);
    const timeline = seen.map((r) => r.at - deadline).join(' ');
    // Polled during the drain, not after it (a poll that left just before its end arrives a hair later).
    expect(seen.filter((r) => r.at > deadline + 200).length, timeline).toBeGreaterThan(0);
    expect(
      seen.filter((r) => r.at > deadline + DRAIN_MS + 250),
      timeline,
    ).toEqual([]);
    expect(posts(sim.ledger)).toBe(2);
    expect(readJournal(ws.state).items.every((i) => i.state === 'submitted' || i.state === 'running')).toBe(true);
  },
);
