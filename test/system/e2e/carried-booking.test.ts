// An attempt the gateway may have billed stays booked whichever command or policy sends its row again
// (core/plan-changes.ts): the budget counts it, so what the gateway bills never passes --budget, and
// what gbatch books is never less than the gateway's ledger.
import { expect, test } from 'vitest';
import type { Simulator } from '../../../src/sim/index.js';
import { BUILT, gatewayEnv, runCli, stdoutJson, workspaceRunArgs } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

const billed = (sim: Simulator): number => sim.ledger.chargesTotal(sim.account(KEY).name);

async function booked(ws: Workspace): Promise<number> {
  const { totals } = await reportJson(ws.state);
  return totals.actual_usd + totals.reserved_usd;
}

test.skipIf(!BUILT)(
  'resolve --all-uncertain --resubmit keeps both lost videos booked: the next night under the same budget sends neither',
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { acceptThenDropRate: 1, finalResolution: '1080p' } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v0', 'a gull at dawn'),
      videoRow('v1', 'a gull at dusk'),
    ]);
    const first = await runCli(workspaceRunArgs(ws, manifest, ['--json', '--quiet', '--budget', '100']), { env });
    expect(first.code, first.stderr).toBe(4);
    const bounds = readJournal(ws.state).items.reduce((n, i) => n + i.reservedUsd, 0);
    expect(bounds).toBeGreaterThan(0);
    const budget = (bounds * 1.04).toFixed(6);

    const resolved = await runCli(['resolve', '--state', ws.state, '--all-uncertain', '--resubmit']);
    expect(resolved.code, resolved.stderr).toBe(0);
    sim.faults.acceptThenDropRate = 0;
    const second = await runCli(workspaceRunArgs(ws, manifest, ['--json', '--quiet', '--budget', budget]), { env });
    expect(second.code, second.stderr).toBe(3);
    expect(stdoutJson(second).counts.deferred).toBe(2);
    expect(posts(sim.ledger)).toBe(2);
    expect(billed(sim)).toBeLessThanOrEqual(Number(budget));
    expect(await booked(ws)).toBeGreaterThanOrEqual(billed(sim) - 1e-9);
  },
);

test.skipIf(!BUILT)(
  'a resubmitted chat row whose first request was billed is booked for both: the report is never below the ledger',
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { acceptThenDropRate: 1 } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c', 'Name a constellation.')]);
    const first = await runCli(workspaceRunArgs(ws, manifest, ['--json', '--quiet']), { env });
    expect(first.code, first.stderr).toBe(4);
    const bound = readJournal(ws.state).byId.get('c')!.reservedUsd;

    expect((await runCli(['resolve', '--state', ws.state, 'c', '--resubmit'])).code).toBe(0);
    sim.faults.acceptThenDropRate = 0;
    const second = await runCli(workspaceRunArgs(ws, manifest, ['--json', '--quiet']), { env });
    expect(second.code, second.stderr).toBe(0);
    expect(posts(sim.ledger)).toBe(2);
    expect(await booked(ws)).toBeGreaterThanOrEqual(billed(sim) - 1e-9);
    const row = readJournal(ws.state).byId.get('c')!;
    expect(row).toMatchObject({ state: 'downloaded', carriedUsd: bound });
  },
);

test.skipIf(!BUILT)(
  '--resubmit-uncertain-text over four nights: a lost chat stays booked, the resend waits for room, the ledger stays within the budget',
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { acceptThenDropRate: 1 } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow('c', 'Write a long story about the sea.', { max_tokens: 64 }),
    ]);
    const first = await runCli(workspaceRunArgs(ws, manifest, ['--json', '--quiet', '--budget', '100']), { env });
    expect(first.code, first.stderr).toBe(4);
    const bound = readJournal(ws.state).byId.get('c')!.reservedUsd;
    const budget = (bound * 1.5).toFixed(9);
    for (let night = 2; night <= 4; night++) {
      const run = await runCli(
        workspaceRunArgs(ws, manifest, ['--json', '--quiet', '--budget', budget, '--resubmit-uncertain-text']),
        { env },
      );
      expect(run.code, `night ${night}: ${run.stderr}`).toBe(3);
      expect(readJournal(ws.state).byId.get('c')).toMatchObject({ state: 'deferred', carriedUsd: bound });
    }
    expect(posts(sim.ledger)).toBe(1);
    expect(billed(sim)).toBeLessThanOrEqual(Number(budget));
    expect(await booked(ws)).toBeGreaterThanOrEqual(billed(sim) - 1e-9);
  },
);

test.skipIf(!BUILT)('retry --failed on answers over --max-response-bytes keeps each billed answer booked', async () => {
  const ws = workspace();
  const sim = await startSim();
  const env = gatewayEnv(sim.baseUrl, KEY);
  const manifest = writeJsonl(ws.path('rows.jsonl'), [
    chatRow('a', 'Tell me all about owls.', { max_tokens: 64, n: 16 }),
    chatRow('b', 'And all about bats.', { max_tokens: 64, n: 16 }),
  ]);
  const args = workspaceRunArgs(ws, manifest, ['--json', '--quiet', '--max-response-bytes', '1024']);
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (attempt > 1) expect((await runCli(['retry', '--state', ws.state, '--failed'])).code).toBe(0);
    const run = await runCli(args, { env });
    expect(run.code, run.stderr).toBe(1);
    expect(stdoutJson(run).counts.failed).toBe(2);
  }
  expect(posts(sim.ledger)).toBe(6);
  // Each answer is booked at its bound (its usage is in the unread body): three answers, three bounds.
  const rows = readJournal(ws.state).items;
  const lastAttempts = rows.reduce((n, row) => n + row.actualUsd!, 0);
  expect(await booked(ws)).toBeCloseTo(3 * lastAttempts, 9);
  expect(await booked(ws)).toBeGreaterThanOrEqual(billed(sim) - 1e-9);
  for (const row of rows) expect(row.carriedUsd).toBeCloseTo(2 * row.actualUsd!, 9);
});
