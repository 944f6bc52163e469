// One runner per journal: a second `gbatch run` on a live journal refuses (exit 2) and sends nothing;
// once the first is SIGKILLed, a new run takes the journal over and finishes the campaign.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startSimulator, type RequestRecord } from '../../../src/sim/index.js';
import { writeCampaign } from '../../helpers/crash/campaign.js';
import { assertBuilt, describeEnd, gbatch, runArgs, startGbatch } from '../../helpers/crash/gbatch-child.js';
import { proveCampaign, readReport } from '../../helpers/crash/proof.js';
import { watchSimulator } from '../../helpers/crash/sim-watch.js';

const API_KEY = 'sk-lock-test';
const dir = mkdtempSync(join(tmpdir(), 'gbatch-lock-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a second run on a live journal exits 2; after SIGKILL of the first, a new run takes over and finishes', async () => {
  assertBuilt();
  // The simulator's clock stands still until the first runner is killed: its video tasks never end, so it is
  // still polling when the second one arrives, however slow the host. Then the clock jumps past the tasks' end.
  const frozenAt = Date.now();
  let ahead: number | undefined;
  const clock = { now: () => (ahead === undefined ? frozenAt : Date.now() + ahead) };
  const sim = await startSimulator({
    accounts: [{ key: API_KEY, balanceUsd: 100 }],
    taskSeconds: 1.5,
    seed: 5,
    clock,
  });
  try {
    const gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    const campaign = writeCampaign(dir, 'lock', { chat: 2, responses: 1, video: 3 });
    const submissions = campaign.rows.length;
    const simWatch = watchSimulator(sim);
    const answered = new Promise<void>((resolve) => {
      let seen = 0;
      simWatch.events.on('request', (entry: RequestRecord) => {
        if (entry.method === 'POST' && ++seen === submissions) resolve();
      });
    });

    const live = startGbatch(runArgs(campaign.jobFile, dir), gateway);
    await Promise.race([
      answered,
      live.ended.then((e) => {
        throw new Error(describeEnd('first run ended early', e));
      }),
    ]);
    const postsBefore = sim.ledger.requests.filter((r) => r.method === 'POST').length;

    const second = await gbatch(runArgs(campaign.jobFile, dir), gateway);
    expect(second.code, describeEnd('second run', second)).toBe(73);
    expect(second.stderr).toMatch(
      new RegExp(`another gbatch run \\(pid ${live.process.pid} on [^)]+\\) is using this journal`),
    );
    expect(live.running, 'the first runner is untouched').toBe(true);
    expect(sim.ledger.requests.filter((r) => r.method === 'POST')).toHaveLength(postsBefore);

    live.kill();
    const killed = await live.ended;
    expect(killed.signal).toBe('SIGKILL');
    ahead = 2_000;

    const third = await gbatch(runArgs(campaign.jobFile, dir), gateway);
    expect(third.code, describeEnd('third run', third)).toBe(0);
    expect(third.stderr).toContain(`taking over the journal from runner pid ${live.process.pid}`);
    proveCampaign({
      campaign,
      sim,
      apiKey: API_KEY,
      report: await readReport(`${dir}/j.db`, gateway),
      outDir: `${dir}/out`,
      lostChargedCalls: new Map(),
      history: 'first run killed while polling; second refused; third took over',
      workDir: dir,
      printed: [killed, second, third].map((e) => e.stdout + e.stderr).join(''),
    });
  } finally {
    await sim.close();
  }
}, 30_000);
