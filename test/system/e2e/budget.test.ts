// Money limits: --budget below the campaign's estimate (exit 3, the ledger never above the budget, the
// rest sent once the budget is raised), and the gateway's own 402 when the balance runs out.

import { expect, test } from 'vitest';
import type { Ledger } from '../../../src/sim/index.js';
import { BUILT, gatewayEnv, runCli, stdoutJson, workspaceRunArgs } from '../../helpers/cli.js';
import { reportJson } from '../../helpers/report.js';
import { statesById } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

const PROMPTS = [
  'Fog rolling over a harbour',
  'A fox crossing fresh snow',
  'Neon signs in the rain',
  'A paper plane over rooftops',
];

function writeVideos(ws: Workspace): string {
  return writeJsonl(
    ws.path('videos.jsonl'),
    PROMPTS.map((p, i) => videoRow(`v${i + 1}`, p)),
  );
}

/** The most the account ever had taken from it, reservations included, charge by charge. */
function peakSpend(ledger: Ledger, account = 'acct-1'): number {
  let total = 0;
  let peak = 0;
  for (const charge of ledger.charges.filter((c) => c.account === account)) {
    total += charge.usd;
    peak = Math.max(peak, total);
  }
  return peak;
}

/** What --budget reserves per row: the most the gateway can bill for it (plan's max_usd), not the estimate. */
async function boundPerRow(manifest: string): Promise<number> {
  const plan = await runCli(['plan', manifest, '--json']);
  expect(plan.code, plan.stderr).toBe(0);
  const { max_usd: total, valid } = stdoutJson(plan);
  expect(valid).toBe(PROMPTS.length);
  return total / PROMPTS.length;
}

async function estimatePerRow(manifest: string): Promise<number> {
  const { estimated_usd: total } = stdoutJson(await runCli(['plan', manifest, '--json']));
  return total / PROMPTS.length;
}

test.skipIf(!BUILT)(
  'a budget below what the rows can be billed: exit 3, spend within it; a raised budget sends the rest once',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeVideos(ws);
    const perRow = await boundPerRow(manifest);
    // Each row reserves its bound until it settles at its actual (here its estimate): one row settled, the
    // next in flight, and no room for a third.
    const budget = Number((perRow + 1.5 * (await estimatePerRow(manifest))).toFixed(6));
    const run = (budgetUsd: number) =>
      runCli(workspaceRunArgs(ws, manifest, ['--budget', String(budgetUsd), '--json', '--quiet']), { env });

    const first = await run(budget);
    expect(first.code, first.stderr).toBe(3);
    const summary = stdoutJson(first);
    expect(summary.stop_reason).toBe('budget');
    expect(summary.counts).toMatchObject({ downloaded: 2, deferred: 2 });
    expect(first.stderr).toMatch(/deferred by --budget/);
    expect(sim.ledger.chargesTotal('acct-1')).toBeLessThanOrEqual(budget);
    expect(peakSpend(sim.ledger)).toBeLessThanOrEqual(budget);
    expect(sim.ledger.tasks).toHaveLength(2);

    const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    expect(status.attention.deferred.map((i: { id: string }) => i.id)).toEqual(['v3', 'v4']);
    expect(status.budget_usd).toBe(budget);

    const second = await run(perRow * 10);
    expect(second.code, second.stderr).toBe(0);
    expect(Object.values(statesById(ws.state))).toEqual(['downloaded', 'downloaded', 'downloaded', 'downloaded']);
    expect(sim.ledger.tasks).toHaveLength(4);
    expect(duplicates(sim.ledger)).toEqual({});
    const report = await reportJson(ws.state);
    expect(report.totals.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
  },
);

test.skipIf(!BUILT)(
  "the gateway's 402 stops every submission: exit 3, the rest deferred; sent with a funded key later",
  async () => {
    const ws = workspace();
    const FUNDED_KEY = 'sk-e2e-funded-key-91c2';
    const manifest = writeVideos(ws);
    const perRow = await estimatePerRow(manifest);
    // The simulator cannot top an account up, so the "top-up" is a second account with money.
    const sim = await startSim({
      accounts: [
        { key: KEY, balanceUsd: perRow * 2.5 },
        { key: FUNDED_KEY, balanceUsd: 100 },
      ],
    });
    const run = (key: string) =>
      runCli(workspaceRunArgs(ws, manifest, ['--concurrency', '1', '--json', '--quiet']), {
        env: gatewayEnv(sim.baseUrl, key),
      });

    const first = await run(KEY);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/balance ran out \(402\)/);
    const summary = stdoutJson(first);
    expect(summary.stop_reason).toBe('balance');
    expect(summary.counts).toMatchObject({ downloaded: 2, deferred: 2 });
    // The third submission met the 402; the fourth was never sent.
    expect(posts(sim.ledger, 'acct-1')).toBe(3);
    expect(sim.ledger.requests.filter((r) => r.status === 402)).toHaveLength(1);
    expect(statesById(ws.state)).toEqual({ v1: 'downloaded', v2: 'downloaded', v3: 'deferred', v4: 'deferred' });

    const human = await runCli(['run', manifest, '--state', ws.state, '--out', ws.out], {
      env: gatewayEnv(sim.baseUrl, KEY),
    });
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/gateway's balance ran out/);

    const second = await run(FUNDED_KEY);
    expect(second.code, second.stderr).toBe(0);
    expect(Object.values(statesById(ws.state))).toEqual(['downloaded', 'downloaded', 'downloaded', 'downloaded']);
    expect(sim.ledger.tasks.map((t) => t.account)).toEqual(['acct-1', 'acct-1', 'acct-2', 'acct-2']);
    expect(duplicates(sim.ledger)).toEqual({});
    const report = await reportJson(ws.state);
    expect(report.totals.actual_usd).toBeCloseTo(
      sim.ledger.chargesTotal('acct-1') + sim.ledger.chargesTotal('acct-2'),
      6,
    );
  },
);
