// Two runners of one PostgreSQL job against a gateway that bills at group ratio x2 (the pricing table says
// x1): the runner whose video shows the ratio keeps it in the journal before the row settles, and the other
// runner books its chat answers at it too (their usage carries no price). Proven from the hostile gateway's
// own ledger against the report.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import { CHARGE_GRAIN_USD } from '../../../src/core/charge-check.js';
import { assertBuilt, describeEnd, startGbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { DEFAULTS, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { readReport } from '../../helpers/runners.js';

/** Each runner's requests at the wire: two runners hold twice as many chats as one can. */
const CONCURRENCY = 2;
const CHATS = 30;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-ratio-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('a group ratio seen by one runner of a PostgreSQL job', () => {
  const db = usePgSchema('gbatch_multi_ratio');

  test("is the other runner's too: both book chat at it, and the report equals the gateway's ledger", async () => {
    assertBuilt();
    // Chat answers wait until both runners hold chats on the wire and the video (the job's first row) has been
    // downloaded: by then the ratio it showed is in the journal, and neither runner has booked a chat yet.
    const gw = await startHostileGateway({
      groupRatio: 2,
      reportCharge: true,
      routes: {
        chat: async (req, res, gateway) => {
          await gateway.reached(
            (g) => g.count('GET', '/v1/videos/') > 0 && g.count('POST', '/v1/chat/completions') >= 2 * CONCURRENCY,
          );
          await DEFAULTS.chat(req, res, gateway);
        },
      },
    });
    onTestFinished(() => gw.close());
    const gateway: Gateway = { baseUrl: gw.baseUrl, apiKey: gw.key };
    const manifest = writeJsonl(join(dir, 'ratio.jsonl'), [
      videoRow('v1', 'A harbour at dawn', { model: 'video-mini', resolution: '720p', duration: 5 }),
      ...Array.from({ length: CHATS }, (_, i) => chatRow(`c${i + 1}`, `Name a harbour (${i + 1}).`)),
    ]);
    const args = [
      'run',
      manifest,
      '--journal',
      db.url(),
      '--out',
      join(dir, 'out'),
      '--poll-interval',
      '0.02',
      '--concurrency',
      String(CONCURRENCY),
      '--quiet',
    ];
    const ends = await Promise.all([startGbatch(args, gateway).ended, startGbatch(args, gateway).ended]);
    for (const end of ends) expect(end.code, describeEnd('a runner', end)).toBe(0);
    const report = await readReport('ratio', db.url(), gateway);
    expect(report.totals.by_state).toEqual({ downloaded: CHATS + 1 });
    const billed = gw.billedUsd();
    const chatBilled = gw.charges.filter((c) => c.kind === 'chat').reduce((sum, c) => sum + c.usd, 0);
    const chatBooked = report.items.filter((i) => i.id.startsWith('c')).reduce((sum, i) => sum + i.actual_usd!, 0);
    expect(chatBooked / chatBilled).toBeCloseTo(1, 6);
    expect(Math.abs(report.totals.actual_usd - billed)).toBeLessThanOrEqual((CHATS + 1) * CHARGE_GRAIN_USD);

    const saw = ends.find((e) => e.stderr.includes("booked the gateway's charge"));
    const told = ends.find((e) => e !== saw)!;
    expect(saw?.stderr, describeEnd('the runner that saw the video', ends[0]!)).toMatch(
      /model 'video-mini' \(item 'v1'\): the gateway charged .* \(x2\.000\): booked the gateway's charge/,
    );
    expect(told.stderr).toMatch(
      /another runner of the job saw model 'video-mini' \(item 'v1'\): the gateway charged \$0\.368344, the pricing table says \$0\.184172 \(x2\.000\): every later reservation is scaled by x2\.000/,
    );
  }, 120_000);
});
