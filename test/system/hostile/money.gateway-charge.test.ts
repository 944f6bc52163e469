// The gateway's live price list and group ratio are authoritative (spec 8.2, 8.3): a gateway that bills
// above the pricing file, and says so in its poll answer (new-api's `data.quota`), is believed. The row is
// booked at its charge, every later reservation is scaled by the ratio seen, and the report names the rows
// the table priced wrong. The proof is the hostile gateway's own ledger, against --budget and the report.
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { expect, onTestFinished, test } from 'vitest';
import { CHARGE_GRAIN_USD } from '../../../src/core/charge-check.js';
import { BUILTIN_PRICING } from '../../../src/core/pricing.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';
import {
  DEFAULTS,
  startHostileGateway,
  type HostileGateway,
  type HostileOptions,
  type HostileRequest,
} from '../../helpers/hostile-gateway.js';

async function gateway(options: HostileOptions): Promise<HostileGateway> {
  const gw = await startHostileGateway(options);
  onTestFinished(() => gw.close());
  return gw;
}

/** 40 video-mini rows at 720p, 5 s: the table says $0.184 each, bounded at 1080p ($0.459). */
function fortyVideos(ws: Workspace): string {
  return writeJsonl(
    ws.path('videos.jsonl'),
    Array.from({ length: 40 }, (_, i) =>
      videoRow(`v${i + 1}`, `A harbour at dawn, take ${i + 1}`, {
        model: 'video-mini',
        resolution: '720p',
        duration: 5,
      }),
    ),
  );
}

function run(ws: Workspace, gw: HostileGateway, manifest: string, ...flags: string[]) {
  return runCli(
    ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--json', '--quiet', ...flags],
    { env: gatewayEnv(gw.baseUrl, gw.key) },
  );
}

interface PriceDrift {
  model: string;
  items: number;
  table_usd: number;
  gateway_charge_usd: number;
  ratio: number | null;
}

async function expectLedgerWithinBudgetAndBooked(ws: Workspace, gw: HostileGateway, budget: number): Promise<void> {
  const billed = gw.billedUsd();
  expect(billed).toBeGreaterThan(0);
  expect(billed).toBeLessThanOrEqual(budget);
  const report = await reportJson(ws.state);
  // What the report books is what the gateway billed: its quota is booked, not the table's figure (a quota
  // within one unit of the table's figure is that price rounded up to the unit: the table's is kept).
  const settled = report.items.filter((i) => i.actual_usd !== null).length;
  expect(Math.abs(report.totals.actual_usd - billed)).toBeLessThanOrEqual(settled * CHARGE_GRAIN_USD);
  expect(report.totals.actual_usd + report.totals.reserved_usd).toBeLessThanOrEqual(budget);
}

test.skipIf(!BUILT)(
  'a gateway billing at group ratio 2 (the pricing file says 1): its charge is booked, later reservations doubled, the bill stays within --budget',
  async () => {
    const ws = workspace();
    const gw = await gateway({ groupRatio: 2, reportCharge: true });
    const result = await run(ws, gw, fortyVideos(ws), '--budget', '10');
    await expectLedgerWithinBudgetAndBooked(ws, gw, 10);
    expect(result.code, result.stderr).toBe(3);
    expect(stdoutJson(result).stop_reason).toBe('budget');
    // One line names the model, the table's figure and the gateway's; said once, not per row.
    const lines = result.stderr.split('\n').filter((l) => l.includes('the pricing table says'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /model 'video-mini' \(item 'v\d+'\): the gateway charged \$0\.368\d+, the pricing table says \$0\.184\d+ \(x2\.000\): booked the gateway's charge; every later reservation is scaled by x2\.000; correct the pricing file/,
    );

    const report = (await reportJson(ws.state)) as Awaited<ReturnType<typeof reportJson>> & {
      price_drift: PriceDrift[];
    };
    const settled = report.items.filter((i) => i.actual_usd !== null);
    expect(settled.length).toBeGreaterThan(0);
    for (const item of settled) {
      expect(item).toMatchObject({ mispriced: true, table_usd: 0.18417168 });
      expect(item.actual_usd).toBe(item.gateway_charge_usd);
    }
    expect(report.price_drift).toEqual([
      {
        model: 'video-mini',
        items: settled.length,
        table_usd: expect.closeTo(0.18417168 * settled.length, 6),
        gateway_charge_usd: expect.closeTo(gw.billedUsd(), 6),
        ratio: expect.closeTo(2, 4),
      },
    ]);
    const csv = await runCli(['report', '--state', ws.state, '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]!.endsWith(',rows,table_usd,mispriced')).toBe(true);
    expect(csv.stdout).toMatch(/^v1,video,video-mini,downloaded,.*,1,0\.18417168,true$/m);
    const table = await runCli(['report', '--state', ws.state]);
    expect(table.stdout).toMatch(/^v1 .*priced wrong: gateway \$0\.36834\d, table \$0\.184172/m);
    expect(table.stdout).toMatch(
      /Priced wrong by the pricing table \(the gateway charged more; booked at its charge\): video-mini: \d+ row\(s\), table \$[\d.]+, gateway \$[\d.]+ \(x2\.000\)/,
    );
    const html = await runCli(['report', '--state', ws.state, '--format', 'html']);
    expect(html.stdout).toMatch(/\d+ row\(s\) were charged more by the gateway than the pricing table says/);
    expect(html.stdout).toContain(
      'data-path="[&quot;items&quot;,&quot;v1&quot;,&quot;mispriced&quot;]" data-value="true">priced wrong</span>',
    );
  },
);

test.skipIf(!BUILT)("a pricing file cheaper than the gateway's price list: the same, within --budget", async () => {
  const ws = workspace();
  const gw = await gateway({ reportCharge: true });
  const half = { ref: 0, noref: 0 };
  const mini = Object.fromEntries(
    Object.entries(BUILTIN_PRICING.video['video-mini']!).map(([r, rate]) => [
      r,
      { ...half, ref: rate.ref / 2, noref: rate.noref / 2 },
    ]),
  );
  const pricing = ws.path('pricing.json');
  writeFileSync(pricing, JSON.stringify({ group_ratio: 1, video: { 'video-mini': mini }, chat: {} }));
  const result = await run(ws, gw, fortyVideos(ws), '--budget', '5', '--pricing', pricing);
  await expectLedgerWithinBudgetAndBooked(ws, gw, 5);
  expect(result.code, result.stderr).toBe(3);
  expect(result.stderr).toMatch(/model 'video-mini' .*the pricing table says \$0\.092\d+ \(x2\.000\)/);
});

/** A chat route that answers only once a video has been downloaded: by then the run has seen the video's charge. */
function chatAfterFirstDownload() {
  return async (req: HostileRequest, res: ServerResponse, gw: HostileGateway): Promise<void> => {
    while (gw.count('GET', '/v1/videos/') === 0) await gw.received(gw.requests.length + 1);
    await DEFAULTS.chat(req, res, gw);
  };
}

test.skipIf(!BUILT)(
  'text billed at the same group ratio: its usage carries no price, so once the ratio is seen it is booked at the table times it',
  async () => {
    const ws = workspace();
    const gw = await gateway({ groupRatio: 2, reportCharge: true, routes: { chat: chatAfterFirstDownload() } });
    const manifest = writeJsonl(ws.path('mixed.jsonl'), [
      videoRow('v1', 'A harbour at dawn', { model: 'video-mini', resolution: '720p', duration: 5 }),
      ...['c1', 'c2', 'c3'].map((id) => chatRow(id, `Name a harbour (${id}).`, { max_tokens: 64 })),
    ]);
    const result = await run(ws, gw, manifest, '--budget', '5');
    expect(result.code, result.stderr).toBe(0);
    const report = await reportJson(ws.state);
    // Each chat row is booked at what the gateway billed it (the table's price, doubled), never below.
    const billed = gw.billedUsd();
    expect(report.totals.actual_usd).toBeGreaterThanOrEqual(billed - 1e-9);
    expect(report.totals.actual_usd).toBeCloseTo(billed, 6);
    for (const id of ['c1', 'c2', 'c3']) {
      expect(report.items.find((i) => i.id === id)!.error!.message).toMatch(
        /^booked at the pricing table's \$[\d.]+ x2\.000: the gateway was seen charging that much above the table$/,
      );
    }
  },
);

test.skipIf(!BUILT)(
  'charged above even the bound (a dearer resolution at group ratio 2): the rows already in flight overrun, booked as billed; nothing more is sent',
  async () => {
    const ws = workspace();
    const gw = await gateway({ groupRatio: 2, reportCharge: true, finalResolution: () => '1080p' });
    const result = await run(ws, gw, fortyVideos(ws), '--budget', '10');
    expect(result.code, result.stderr).toBe(3);
    const billed = gw.billedUsd();
    const report = await reportJson(ws.state);
    expect(report.totals.actual_usd).toBeCloseTo(billed, 6);
    // The most that can be in flight before the first charge is seen: every row the budget fits at its bound
    // ($0.459 at 1080p); each then overruns by the gateway's $0.919 less that bound. Nothing is sent after.
    const bound = 0.459421875;
    const charged = Math.ceil(2 * bound * 500_000) / 500_000;
    const inFlight = Math.floor(10 / bound);
    expect(gw.count('POST', '/v1/video/generations')).toBeLessThanOrEqual(inFlight);
    expect(billed).toBeLessThanOrEqual(10 + inFlight * (charged - bound) + 1e-9);
    expect(report.items.filter((i) => i.mispriced)).toHaveLength(gw.count('POST', '/v1/video/generations'));
  },
);

test.skipIf(!BUILT)(
  "a later run starts from the ratio an earlier run saw (against today's pricing file): its first rows do not overrun again",
  async () => {
    const ws = workspace();
    const gw = await gateway({ groupRatio: 2, reportCharge: true, finalResolution: () => '1080p' });
    const manifest = fortyVideos(ws);
    const first = await run(ws, gw, manifest, '--budget', '10');
    expect(first.code, first.stderr).toBe(3);
    const billedBefore = gw.billedUsd();

    // With $30 the second run has ~$10.7 of headroom: at the table's bound ($0.459) 23 rows would be in
    // flight, each billed $0.919; scaled by the x2 the first run saw, 11 fit and nothing is billed past $30.
    const second = await run(ws, gw, manifest, '--budget', '30');
    expect(gw.billedUsd()).toBeGreaterThan(billedBefore);
    await expectLedgerWithinBudgetAndBooked(ws, gw, 30);
    expect(second.code, second.stderr).toBe(3);
    expect(second.stderr).toMatch(
      /an earlier run saw model 'video-mini' \(item 'v\d+'\): the gateway charged \$0\.918844, the pricing table says \$0\.459422 \(x2\.000\): every reservation is scaled by x2\.000; correct the pricing file/,
    );

    // The pricing file corrected (group_ratio 2): nothing is scaled twice, the rest fits $40 at the right price.
    const pricing = ws.path('pricing.json');
    writeFileSync(pricing, JSON.stringify({ ...BUILTIN_PRICING, group_ratio: 2 }));
    const third = await run(ws, gw, manifest, '--budget', '40', '--pricing', pricing);
    expect(third.stderr).not.toMatch(/pricing table says/);
    await expectLedgerWithinBudgetAndBooked(ws, gw, 40);
  },
);
