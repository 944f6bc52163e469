// The journal has more than one writer at times: an operator's `gbatch resolve` commands (several at
// once, or while a run is live). Each must wait its turn, never fail with "database is locked", and
// never crash the live runner (which would leave rows mid-submission, as a crash does).
import { openSqliteFile } from '../../helpers/journal-raw.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, type RequestRecord, type Simulator } from '../../../src/sim/index.js';
import { writeCampaign, type Campaign } from '../../helpers/crash/campaign.js';
import {
  assertBuilt,
  describeEnd,
  gbatch,
  runArgs,
  startGbatch,
  type Ended,
} from '../../helpers/crash/gbatch-child.js';
import { readReport } from '../../helpers/crash/proof.js';
import { watchSimulator } from '../../helpers/crash/sim-watch.js';

const API_KEY = 'sk-concurrent-writers';

describe('several writers on one journal', () => {
  let dir: string;
  let statePath: string;
  let sim: Simulator;
  let campaign: Campaign;
  let gateway: { baseUrl: string; apiKey: string };
  let chatIds: string[];

  /** Puts the chat rows where a killed runner's recovery leaves them. */
  function makeChatUncertain(): void {
    const db = openSqliteFile(statePath);
    try {
      db.prepare(`UPDATE items SET state = 'uncertain', reserved_usd = estimate_usd WHERE kind = 'chat'`).run();
    } finally {
      db.close();
    }
  }

  const resolveAll = (flag: '--resubmit' | '--abandon'): Promise<Ended[]> =>
    Promise.all(chatIds.map((id) => gbatch(['resolve', '--state', statePath, id, flag], gateway)));

  beforeAll(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'gbatch-writers-'));
    statePath = `${dir}/j.db`;
    sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], taskSeconds: 1, seed: 9 });
    gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    campaign = writeCampaign(dir, 'writers', { chat: 8, responses: 0, video: 40 });
    chatIds = campaign.rows.filter((r) => r.kind === 'chat').map((r) => r.id);
    // A zero budget ingests every row and defers it: a journal with nothing sent.
    const ingest = await gbatch(runArgs(campaign.jobFile, dir, ['--budget', '0']), gateway);
    if (ingest.code !== 3 || sim.ledger.requests.length !== 0)
      throw new Error(describeEnd('ingest with --budget 0', ingest));
  });

  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('eight `gbatch resolve` at once on one journal all succeed', async () => {
    makeChatUncertain();
    const ended = await resolveAll('--resubmit');
    const failures = ended.map((e, i) => ({ id: chatIds[i], e })).filter(({ e }) => e.code !== 0);
    expect(failures.map(({ id, e }) => describeEnd(`resolve ${id}`, e))).toEqual([]);
    const report = await readReport(statePath, gateway);
    expect(report.items.filter((i) => i.kind === 'chat').map((i) => i.state)).toEqual(chatIds.map(() => 'pending'));
  });

  test('a live run survives resolve commands written while it commits its own work', async () => {
    makeChatUncertain();
    const simWatch = watchSimulator(sim);
    const busy = new Promise<void>((resolve) => {
      simWatch.events.on('request', (entry: RequestRecord) => {
        if (entry.method === 'POST') resolve();
      });
    });
    // The ingest's --budget 0 is the job's budget until lifted.
    const live = startGbatch(runArgs(campaign.jobFile, dir, ['--concurrency', '8', '--no-budget']), gateway);
    await Promise.race([busy, live.ended]);
    const resolves = await resolveAll('--abandon');
    const run = await live.ended;

    expect.soft(run.stderr, 'the live run did not crash').not.toMatch(/SqliteError|database is locked/);
    // It ends as a run does, with its summary: exit 1 (the abandoned rows failed) or, when it finished
    // before the last resolve, exit 4 (some rows were still uncertain then).
    expect.soft([1, 4], describeEnd('live run', run)).toContain(run.code);
    // Its --quiet ending is the job's standing: finished with the abandoned rows failed, or rows still uncertain.
    expect.soft(run.stdout).toMatch(/^Finished: \d+ downloaded, \d+ failed, rejected or invalid|item\(s\) uncertain/m);
    expect(resolves.filter((e) => e.code !== 0).map((e) => describeEnd('resolve', e))).toEqual([]);
    const report = await readReport(statePath, gateway);
    expect(
      report.items
        .filter((i) => i.state !== (i.kind === 'chat' ? 'failed' : 'downloaded'))
        .map((i) => `${i.id}: ${i.state}`),
    ).toEqual([]);
  });
});
