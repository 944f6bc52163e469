// An operator's `resolve --abandon` while a run is live: the runner meets a row it holds a stale copy of.
// That is the operator's decision, not a bug: the row leaves the run (never sent), the run goes on and
// ends as it would have, and `resolve` itself succeeds.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const ROWS = 12;
const LAST = `c${ROWS - 1}`;
const prompt = (i: number): string => `Name a river, take ${i}`;

async function liveRun(extra: string[]) {
  const ws = workspace();
  // One request at a time, each slow: the run is still early in the manifest when `resolve` lands.
  // 400 ms: the eighth row (when the last ones are deferred) settles ~3 s in, time enough for `resolve` to start under
  // load.
  const sim = await startSim({ faults: { latencyMs: 400 } });
  const env = gatewayEnv(sim.baseUrl, KEY);
  const manifest = writeJsonl(
    ws.path('rows.jsonl'),
    Array.from({ length: ROWS }, (_, i) => chatRow(`c${i}`, prompt(i))),
  );
  const run = startCli(
    ['run', manifest, '--state', ws.state, '--out', ws.out, '--concurrency', '1', '--quiet', '--json', ...extra],
    { env },
  );
  await sim.ledger.reached((ledger) => posts(ledger) >= 1);
  return { ws, sim, env, run };
}

const sentPrompts = (sim: Awaited<ReturnType<typeof liveRun>>['sim']): string[] =>
  sim.ledger.requests.filter((r) => r.method === 'POST').map((r) => JSON.stringify(r));

test.skipIf(!BUILT)(
  'a pending row abandoned under a live run is never sent; the run finishes (exit 1: that row failed), not 70',
  async () => {
    const { ws, sim, run } = await liveRun([]);
    // The last row: claimed by the run already (its page was read), its turn comes seconds later.
    const resolve = await runCli(['resolve', '--state', ws.state, LAST, '--abandon']);
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(resolve.stdout).toContain(`item '${LAST}': abandoned`);

    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(1);
    expect(ended.stderr).not.toMatch(/internal error/);
    expect(ended.stderr).toMatch(
      new RegExp(`item '${LAST}' was changed outside this run \\(now failed\\).*dropped from this run`),
    );
    expect(sentPrompts(sim).filter((r) => r.includes(prompt(ROWS - 1)))).toEqual([]);
    expect(sentPrompts(sim).filter((r) => r.includes(prompt(0)))).toHaveLength(1);
    expect(posts(sim.ledger)).toBe(ROWS - 1);
    const { byId, counts } = readJournal(ws.state);
    expect(byId.get(LAST)).toMatchObject({ state: 'failed', reservedUsd: 0, attempts: 0 });
    expect(counts).toMatchObject({ downloaded: ROWS - 1, failed: 1, pending: 0, submitting: 0 });
    expect(stdoutJson(ended).reserved_usd).toBe(0);
  },
);

test.skipIf(!BUILT)(
  'a row the run holds back for the budget, abandoned meanwhile, is left failed instead of deferred; the run ends with exit 3',
  async () => {
    // Room for the first eight rows (as the simulator charges them): the last four are held back, then
    // deferred when the eighth has settled, seconds after `resolve` abandoned the last one.
    const { ws, sim, run } = await liveRun(['--budget', '0.00009']);
    const resolve = await runCli(['resolve', '--state', ws.state, LAST, '--abandon']);
    expect(resolve.code, resolve.stderr).toBe(0);

    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(3);
    expect(ended.stderr).not.toMatch(/internal error/);
    expect(sentPrompts(sim).filter((r) => r.includes(prompt(ROWS - 1)))).toEqual([]);
    expect(sentPrompts(sim).filter((r) => r.includes(prompt(0)))).toHaveLength(1);
    const { byId, counts } = readJournal(ws.state);
    // Abandoned while the run held it as pending (not after it was deferred): the race this test is about.
    expect(byId.get(LAST)).toMatchObject({
      state: 'failed',
      lastError: { message: 'abandoned by the operator (was pending)' },
    });
    expect(ended.stderr).toMatch(
      new RegExp(`item '${LAST}' was changed outside this run \\(now failed\\) before its 'defer'`),
    );
    expect(counts.deferred).toBeGreaterThan(0);
    expect(counts.submitting + counts.pending).toBe(0);
  },
);
