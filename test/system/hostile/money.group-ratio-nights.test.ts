// The group ratio a run saw is the job's for every later run, however many rows settled before the row that
// showed it: the journal keeps it as it is seen, it is never looked for again among the settled rows. Proven
// from the hostile gateway's own ledger against the report.
import { expect, onTestFinished, test } from 'vitest';
import { CHARGE_GRAIN_USD } from '../../../src/core/charge-check.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';
import { appendJsonl, chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { workspace } from '../../helpers/workspace.js';

const chats = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => chatRow(`c${from + i}`, `Name a harbour (${from + i}).`));

test.skipIf(!BUILT)(
  'a second night after 520 settled chats books its chats at the ratio the first night saw; the report equals the ledger',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({ groupRatio: 1, reportCharge: true });
    onTestFinished(() => gw.close());
    const run = () =>
      runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--quiet'], {
        env: gatewayEnv(gw.baseUrl, gw.key),
      });

    // Night 1: 520 chats settle first (the account at ratio 1), then the account's group is raised to x2 and a
    // video, the job's 521st row, shows it.
    const manifest = writeJsonl(ws.path('nights.jsonl'), chats(1, 520));
    expect((await run()).code).toBe(0);
    gw.options.groupRatio = 2;
    appendJsonl(manifest, [
      videoRow('v1', 'A harbour at dawn', { model: 'video-mini', resolution: '720p', duration: 5 }),
    ]);
    const video = await run();
    expect(video.code, video.stderr).toBe(0);
    expect(video.stderr).toMatch(/model 'video-mini' \(item 'v1'\): the gateway charged .* \(x2\.000\)/);

    // Night 2: twenty more chats, billed at x2 by the gateway.
    const billedBefore = gw.billedUsd();
    appendJsonl(manifest, chats(521, 540));
    const night2 = await run();
    expect(night2.code, night2.stderr).toBe(0);

    const report = await reportJson(ws.state);
    const billedNight2 = gw.billedUsd() - billedBefore;
    const bookedNight2 = report.items
      .filter((i) => Number(i.id.slice(1)) > 520 && i.id.startsWith('c'))
      .reduce((sum, i) => sum + i.actual_usd!, 0);
    expect(billedNight2).toBeGreaterThan(0);
    expect(bookedNight2 / billedNight2).toBeCloseTo(1, 6);
    const settled = report.items.filter((i) => i.actual_usd !== null).length;
    expect(settled).toBe(541);
    expect(Math.abs(report.totals.actual_usd - gw.billedUsd())).toBeLessThanOrEqual(settled * CHARGE_GRAIN_USD);
    expect(night2.stderr).toMatch(/an earlier run saw model 'video-mini' \(item 'v1'\).*\(x2\.000\)/);
  },
);
