// --budget is a hard cap on what the gateway can bill, whatever final resolution it delivers (spec 8.3),
// and it belongs to the job: kept by a resume, replaced or lifted only by an explicit flag.
// The proof is the hostile gateway's own ledger.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { statesById } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';
import { startHostileGateway, type HostileGateway } from '../../helpers/hostile-gateway.js';

/** video-pro 5 s delivered at 4k: 980,100 tokens x $2.8676 per 1M, whatever was asked for. */
const AT_4K = 2.81053476;

async function fourKGateway(): Promise<HostileGateway> {
  const gw = await startHostileGateway({ finalResolution: () => '4k' });
  onTestFinished(() => gw.close());
  return gw;
}

function tenCheapVideos(ws: Workspace): string {
  return writeJsonl(
    ws.path('videos.jsonl'),
    Array.from({ length: 10 }, (_, i) =>
      videoRow(`v${i + 1}`, `A lighthouse at dusk, take ${i + 1}`, {
        model: 'video-pro',
        resolution: '480p',
        duration: 5,
      }),
    ),
  );
}

function runner(ws: Workspace, gw: HostileGateway, manifest: string) {
  return (...flags: string[]) =>
    runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--json', '--quiet', ...flags],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
}

async function expectLedgerAgreesWithReport(
  ws: Workspace,
  gw: HostileGateway,
  budget: number | undefined,
): Promise<void> {
  const report = await reportJson(ws.state);
  const billed = gw.billedUsd();
  if (budget !== undefined) expect(billed).toBeLessThanOrEqual(budget);
  expect(report.totals.actual_usd).toBeCloseTo(billed, 6);
  expect(report.totals.actual_usd + report.totals.reserved_usd).toBeGreaterThanOrEqual(billed - 1e-6);
}

test.skipIf(!BUILT)(
  '10 video-pro rows at 480p, --budget 1, delivered at 4k: nothing the gateway can bill over $1 is sent',
  async () => {
    const ws = workspace();
    const gw = await fourKGateway();
    const run = await runner(ws, gw, tenCheapVideos(ws))('--budget', '1');
    expect(run.code, run.stderr).toBe(3);
    // Each row can be billed $2.81 at 4k: not one fits a $1 budget (the old code sent 4 and was billed $11.24).
    expect(gw.billedUsd()).toBeLessThanOrEqual(1);
    expect(gw.count('POST', '/v1/video/generations')).toBe(0);
    expect(Object.values(statesById(ws.state))).toEqual(Array(10).fill('deferred'));
    await expectLedgerAgreesWithReport(ws, gw, 1);
    const report = await reportJson(ws.state);
    expect(report.items[0]!.error!.message).toBe(
      'deferred by --budget: needs up to $2.810535 but $1.000000 of the $1.000000 budget remains (settled $0.000000, reserved $0.000000)',
    );
  },
);

test.skipIf(!BUILT)(
  "a budget that fits two 4k bills sends two; a resume keeps the job's budget; --budget raises it; --no-budget lifts it",
  async () => {
    const ws = workspace();
    const gw = await fourKGateway();
    const run = runner(ws, gw, tenCheapVideos(ws));
    const posts = () => gw.count('POST', '/v1/video/generations');

    const first = await run('--budget', '6');
    expect(first.code, first.stderr).toBe(3);
    expect(stdoutJson(first)).toMatchObject({
      stop_reason: 'budget',
      budget_usd: 6,
      counts: { downloaded: 2, deferred: 8 },
    });
    expect(posts()).toBe(2);
    expect(gw.billedUsd()).toBeCloseTo(2 * AT_4K, 6);
    await expectLedgerAgreesWithReport(ws, gw, 6);
    const deferred = (await reportJson(ws.state)).items.find((i) => i.state === 'deferred')!;
    expect(deferred.error!.message).toMatch(
      /needs up to \$2\.810535 but \$0\.378930 of the \$6\.000000 budget remains \(settled \$5\.621070, reserved \$0\.000000\)/,
    );

    // A resume without --budget is still capped by the job's $6: nothing more is sent.
    const resumed = await run();
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(resumed.stderr).toMatch(/budget \$6\.000000 in force, kept from earlier runs of this journal \(cumulative/);
    expect(stdoutJson(resumed).budget_usd).toBe(6);
    expect(posts()).toBe(2);
    await expectLedgerAgreesWithReport(ws, gw, 6);
    const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    expect(status.budget_usd).toBe(6);
    expect((await reportJson(ws.state)).totals.budget_usd).toBe(6);

    // --budget 12 replaces it (said old -> new): two more fit.
    const raised = await run('--budget', '12');
    expect(raised.code, raised.stderr).toBe(3);
    expect(raised.stderr).toMatch(/budget changed: \$6\.000000 -> \$12\.000000/);
    expect(posts()).toBe(4);
    await expectLedgerAgreesWithReport(ws, gw, 12);

    // --no-budget lifts it: the rest go out, and status says there is none.
    const lifted = await run('--no-budget');
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lifted.stderr).toMatch(/budget lifted \(--no-budget\): was \$12\.000000/);
    expect(posts()).toBe(10);
    await expectLedgerAgreesWithReport(ws, gw, undefined);
    expect(stdoutJson(await runCli(['status', '--state', ws.state, '--json'])).budget_usd).toBeNull();
    const after = await run();
    expect(after.code, after.stderr).toBe(0);
    expect(stdoutJson(after).budget_usd).toBeNull();
  },
);

test.skipIf(!BUILT)(
  '--budget-may-overrun reserves only the estimate: named for what it risks, the bill exceeds the budget at 4k',
  async () => {
    const ws = workspace();
    const gw = await fourKGateway();
    const run = await runner(ws, gw, tenCheapVideos(ws))('--budget', '1', '--budget-may-overrun');
    expect(run.code, run.stderr).toBe(3);
    // Four 480p estimates ($0.2457 each) fit $1; delivered at 4k they cost $11.24.
    expect(gw.count('POST', '/v1/video/generations')).toBe(4);
    expect(gw.billedUsd()).toBeGreaterThan(1);
    await expectLedgerAgreesWithReport(ws, gw, undefined);
  },
);
