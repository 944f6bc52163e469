// 429 with Retry-After: the whole account waits until the window resets, on every lane. The simulator
// and the runner share one fast clock (60x), so the simulator's fixed 60 s windows pass in a second.

import { expect, test } from 'vitest';
import type { RequestRecord } from '../../../src/sim/index.js';
import { FastClock } from '../../helpers/fast-clock.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { runInProcess } from '../../helpers/run.js';
import { duplicates, KEY, startSim } from '../../helpers/sim.js';
import { sha256File, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

const SCALE = 60;
const WINDOW_MS = 60_000;

/**
 * When the window of a 429 received at `at` resets. Its Retry-After is the whole seconds from the
 * moment the simulator checked the limit (a little after `at`) to this instant, rounded up; a client
 * that waits it out from the moment the answer arrives sends nothing before this instant.
 */
function windowResetAfter(at: number): number {
  return at - (at % WINDOW_MS) + WINDOW_MS;
}

function accountRequests(requests: readonly RequestRecord[]): RequestRecord[] {
  return requests.filter((r) => r.account === 'acct-1' && r.path.startsWith('/v1/')).sort((a, b) => a.at - b.at);
}

test('one lane: after a 429 the next request waits out the Retry-After, to the window reset', async () => {
  const ws = workspace();
  const clock = new FastClock(SCALE);
  const sim = await startSim({ clock, accounts: [{ key: KEY, balanceUsd: 10, rateLimitPerMinute: 3 }] });
  const prompts = Array.from({ length: 7 }, (_, i) => `Count to ${i + 1}.`);
  const manifest = writeJsonl(
    ws.path('rows.jsonl'),
    prompts.map((p, i) => chatRow(`c${i}`, p)),
  );

  const result = await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    clock,
    settings: { concurrency: 1, pollIntervalMs: 50 * SCALE },
  });

  expect(result.exitCode).toBe(0);
  expect(result.counts.downloaded).toBe(7);
  const requests = accountRequests(sim.ledger.requests);
  const limited = requests.filter((r) => r.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  for (const refused of limited) {
    const next = requests[requests.indexOf(refused) + 1];
    expect(next, 'the run went on after the 429').toBeDefined();
    expect(next!.at).toBeGreaterThanOrEqual(windowResetAfter(refused.at));
  }
  expect(duplicates(sim.ledger)).toEqual({});
  expect(Object.values(sim.ledger.submissionsByPrompt())).toEqual(prompts.map(() => 1));
});

test('every lane (submit, poll, download) holds back until the Retry-After has passed', async () => {
  const ws = workspace();
  const clock = new FastClock(SCALE);
  const sim = await startSim({
    clock,
    taskSeconds: 6,
    accounts: [{ key: KEY, balanceUsd: 10, rateLimitPerMinute: 4 }],
  });
  const manifest = writeJsonl(ws.path('rows.jsonl'), [
    chatRow('c1', 'Name a colour.'),
    chatRow('c2', 'Name a metal.'),
    chatRow('c3', 'Name a bird.'),
    videoRow('v1', 'Waves at night'),
    videoRow('v2', 'Sand dunes at noon'),
  ]);
  const lanes = { concurrency: 1, pollConcurrency: 1, downloadConcurrency: 1 };

  const result = await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    clock,
    settings: { ...lanes, pollIntervalMs: 2000 },
  });

  expect(result.exitCode).toBe(0);
  const { byId } = readJournal(ws.state);
  for (const id of ['v1', 'v2']) expect(sha256File(byId.get(id)!.outputPath!)).toBe(SIM_VIDEO_SHA256);
  expect(duplicates(sim.ledger)).toEqual({});
  expect(sim.ledger.tasks).toHaveLength(2);

  const requests = accountRequests(sim.ledger.requests);
  const timeline = requests.map((r) => `${r.at - requests[0]!.at} ${r.method} ${r.path} ${r.status}`).join('\n');
  const limited = requests.filter((r) => r.status === 429);
  expect(limited.length, timeline).toBeGreaterThan(0);
  // Requests already on the wire when a 429 was answered may still arrive (and get their own 429);
  // nothing may be sent after the runner heard it. In flight at once: at most one per lane.
  const inFlight = lanes.concurrency + lanes.pollConcurrency + lanes.downloadConcurrency;
  const perWindow = new Map<number, number>();
  for (const r of limited)
    perWindow.set(Math.floor(r.at / WINDOW_MS), (perWindow.get(Math.floor(r.at / WINDOW_MS)) ?? 0) + 1);
  for (const count of perWindow.values()) expect(count, timeline).toBeLessThanOrEqual(inFlight);
  // The same by the clock: after each 429, only requests that arrive at once (already sent) come before its reset.
  const slackMs = 250 * SCALE; // real ms a request already sent may take to be handled, scaled
  for (const refused of limited) {
    const early = requests.filter((r) => r.at > refused.at + slackMs && r.at < windowResetAfter(refused.at));
    expect(
      early,
      `requests sent during the pause after the 429 at ${refused.at - requests[0]!.at}:\n${timeline}`,
    ).toEqual([]);
  }
});
