// --rpm paces submissions evenly: the pure window, and a real run (the CLI, a child process) against
// the simulator.
import { describe, expect, it } from 'vitest';
import { rateWindow } from '../../../src/pipeline/pacing/send-pacer.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { writeJsonl, chatRow } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

describe('rateWindow', () => {
  it.each([
    [600, 10, 1000],
    [90, 2, 1334],
    [60, 1, 1000],
    [30, 1, 2000],
    [1, 1, 60_000],
    [6000, 100, 1000],
  ])('rpm %i -> %i per %i ms, never above the rate', (rpm, cap, interval) => {
    const window = rateWindow(rpm);
    expect(window).toEqual({ intervalCap: cap, interval });
    expect((window.intervalCap * 60_000) / window.interval).toBeLessThanOrEqual(rpm);
  });
});

/**
 * gbatch paces the moment each request goes on the wire (exact: send-pacer.test.ts); the simulator
 * stamps it when its handler runs, after the loopback and its own event loop: arrivals get this much slack.
 */
const ARRIVAL_SLACK_MS = 150;

/** `gbatch run` as a user starts it, so that the simulator's event loop is not the runner's. */
async function runPaced(sim: Awaited<ReturnType<typeof startSim>>, ws: Workspace, manifest: string): Promise<void> {
  const run = await runCli(
    ['run', manifest, '--state', ws.state, '--out', ws.out, '--rpm', '600', '--concurrency', '50', '--quiet'],
    { env: gatewayEnv(sim.baseUrl, KEY) },
  );
  expect(run.code, run.stderr).toBe(0);
}

function postTimes(sim: Awaited<ReturnType<typeof startSim>>): number[] {
  return sim.ledger.requests
    .filter((r) => r.method === 'POST')
    .map((r) => r.at)
    .sort((a, b) => a - b);
}

function tightestWindow(times: number[], cap: number): number {
  return Math.min(...times.slice(cap).map((t, i) => t - times[i]!));
}

describe.skipIf(!BUILT)('--rpm in a run', () => {
  it('600/min: no one-second window holds more than 10 submissions, and every row completes', async () => {
    const sim = await startSim();
    const ws = workspace();
    const rows = Array.from({ length: 25 }, (_, i) => chatRow(`r${i}`, `pace me ${i}`));
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    await runPaced(sim, ws, manifest);
    const times = postTimes(sim);
    expect(times).toHaveLength(25);
    // Paced: 25 rows at 10 a second span two whole windows (unpaced they all leave within milliseconds).
    expect(times[24]! - times[0]!).toBeGreaterThanOrEqual(2000 - ARRIVAL_SLACK_MS);
    // The 11th request after any request waits for the next window.
    expect(tightestWindow(times, 10)).toBeGreaterThanOrEqual(1000 - ARRIVAL_SLACK_MS);
  }, 20_000);

  it('retries count against the pace: with 5xx answers, still no more than 10 requests in any second', async () => {
    const sim = await startSim({ faults: { errorRates: { chat: 0.3 } } });
    const ws = workspace();
    const rows = Array.from({ length: 30 }, (_, i) => chatRow(`r${i}`, `retry and pace ${i}`));
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    await runPaced(sim, ws, manifest);
    const times = postTimes(sim);
    expect(times.length).toBeGreaterThan(30);
    expect(tightestWindow(times, 10)).toBeGreaterThanOrEqual(1000 - ARRIVAL_SLACK_MS);
  }, 20_000);
});
