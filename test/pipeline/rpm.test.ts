// --rpm paces submissions evenly: the pure window, and a real run against the simulator.
import { describe, expect, it } from 'vitest';
import { rateWindow } from '../../src/pipeline/submitter.js';
import { writeJsonl, chatRow } from '../e2e/helpers/manifests.js';
import { runInProcess } from '../e2e/helpers/run.js';
import { startSim } from '../e2e/helpers/sim.js';
import { workspace } from '../e2e/helpers/workspace.js';

describe('rateWindow', () => {
  it.each([
    [600, 10, 1000], [90, 2, 1334], [60, 1, 1000], [30, 1, 2000], [1, 1, 60_000], [6000, 100, 1000],
  ])('rpm %i -> %i per %i ms, never above the rate', (rpm, cap, interval) => {
    const window = rateWindow(rpm);
    expect(window).toEqual({ intervalCap: cap, interval });
    expect((window.intervalCap * 60_000) / window.interval).toBeLessThanOrEqual(rpm);
  });
});

describe('--rpm in a run', () => {
  it('600/min: no one-second window holds more than 10 submissions, and every row completes', async () => {
    const sim = await startSim();
    const ws = workspace();
    const rows = Array.from({ length: 25 }, (_, i) => chatRow(`r${i}`, `pace me ${i}`));
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const result = await runInProcess({ sim, ws, manifests: [manifest], settings: { rpm: 600, concurrency: 50 } });
    expect(result.exitCode).toBe(0);
    const times = sim.ledger.requests.filter((r) => r.method === 'POST').map((r) => r.at).sort((a, b) => a - b);
    expect(times).toHaveLength(25);
    // Paced: 25 rows at 10 a second span two whole windows (unpaced they all leave within milliseconds).
    expect(times[24]! - times[0]!).toBeGreaterThanOrEqual(1900);
    // The 11th request after any request waits for the next window; a few ms of commit and logging jitter allowed.
    for (let i = 0; i + 10 < times.length; i++) expect(times[i + 10]! - times[i]!).toBeGreaterThanOrEqual(950);
  }, 20_000);
});
