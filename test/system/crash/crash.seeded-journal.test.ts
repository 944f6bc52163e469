// Recovery from every mid-run state, deterministically: a finished journal is put back, row by row,
// into the states a killed runner leaves (with its lock still held by a dead pid), then `gbatch run`
// restarts on it. Each state must lead to exactly the right requests, and no others.
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, type RequestRecord, type Simulator } from '../../../src/sim/index.js';
import { writeCampaign, type Campaign } from '../../helpers/crash/campaign.js';
import { assertBuilt, describeEnd, gbatch, runArgs, type Ended } from '../../helpers/crash/gbatch-child.js';
import { proveCampaign, readReport, sha256, SERVED_SHA256, type ReportJson } from '../../helpers/crash/proof.js';
import { leaveLockOf, seedStates, type MidRunState } from '../../helpers/crash/seed-journal.js';
import { deadPid } from '../../helpers/dead-pid.js';

const API_KEY = 'sk-seeded-journal';

/** The state each row is put back into; the other rows stay downloaded. */
const SEEDED: Record<string, MidRunState> = {
  'chat-01': 'submitting', // the call was charged upstream, its answer lost
  'video-01': 'submitting', // the task exists upstream, its id never journaled
  'video-02': 'submitted',
  'video-03': 'running',
  'video-04': 'succeeded', // settled, file not yet on disk
  'chat-02': 'succeeded', // answer journaled, not yet in results.jsonl
  'resp-01': 'succeeded',
};
const UNTOUCHED_VIDEOS = ['video-05', 'video-06'];

describe('gbatch run restarted on a journal left mid-run', () => {
  let dir: string;
  let sim: Simulator;
  let campaign: Campaign;
  let gateway: { baseUrl: string; apiKey: string };
  let before: ReportJson;
  let originalResults: Map<string, string>;
  let untouchedMtimes: Map<string, number>;
  let killedPid: number;
  let requestsBefore: number;
  let restart: Ended;
  let after: ReportJson;
  let requestsAfter: RequestRecord[];

  const item = (report: ReportJson, id: string) => report.items.find((i) => i.id === id)!;

  beforeAll(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'gbatch-seeded-'));
    sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], taskSeconds: 0.3, seed: 3 });
    gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    campaign = writeCampaign(dir, 'seeded', { chat: 4, responses: 2, video: 6 });
    const first = await gbatch(runArgs(campaign.jobFile, dir), gateway);
    if (first.code !== 0) throw new Error(describeEnd('first run', first));
    before = await readReport(`${dir}/j.db`, gateway);
    originalResults = new Map(
      readFileSync(`${dir}/out/results.jsonl`, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => [(JSON.parse(line) as { custom_id: string }).custom_id, line]),
    );
    untouchedMtimes = new Map(UNTOUCHED_VIDEOS.map((id) => [id, statSync(item(before, id).output!).mtimeMs]));

    seedStates(`${dir}/j.db`, SEEDED);
    // No mid-run video has its file yet.
    for (const id of Object.keys(SEEDED)) {
      if (item(before, id).kind === 'video') unlinkSync(item(before, id).output!);
    }
    unlinkSync(`${dir}/out/results.jsonl`);
    killedPid = await deadPid();
    leaveLockOf(`${dir}/j.db`, killedPid);

    requestsBefore = sim.ledger.requests.length;
    restart = await gbatch(runArgs(campaign.jobFile, dir), gateway);
    requestsAfter = sim.ledger.requests.slice(requestsBefore);
    after = await readReport(`${dir}/j.db`, gateway);
  });

  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the restart takes the journal over from the dead runner and stops at the uncertain rows (exit 4)', () => {
    expect(restart.code, describeEnd('restart', restart)).toBe(4);
    expect(restart.stderr).toContain(`taking over the journal from runner pid ${killedPid}`);
  });

  test('no submission is sent again: not for the submitting rows, nor for any other', () => {
    expect(requestsAfter.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual([]);
  });

  test('submitting -> uncertain, never resent: the chat call and the video task stay single upstream', () => {
    expect(item(after, 'chat-01').state).toBe('uncertain');
    expect(item(after, 'video-01').state).toBe('uncertain');
    expect(item(after, 'video-01').task_id).toBeNull();
    const calls = sim.ledger.submissionsByPrompt();
    for (const id of ['chat-01', 'video-01']) expect(calls[campaign.rows.find((r) => r.id === id)!.prompt]).toBe(1);
  });

  test("submitted and running -> polled again and downloaded, settled at the gateway's charge", () => {
    for (const id of ['video-02', 'video-03']) {
      const row = item(after, id);
      const taskId = item(before, id).task_id!;
      expect(
        requestsAfter.some((r) => r.method === 'GET' && r.path === `/v1/video/generations/${taskId}`),
        `${id} polled`,
      ).toBe(true);
      expect(row.state).toBe('downloaded');
      expect(row.task_id).toBe(taskId);
      expect(sha256(readFileSync(row.output!))).toBe(SERVED_SHA256);
      expect(row.actual_usd).toBeCloseTo(sim.ledger.tasks.find((t) => t.id === taskId)!.chargedUsd, 8);
    }
  });

  test('succeeded video -> downloaded from its existing task, no new task', () => {
    const row = item(after, 'video-04');
    const taskId = item(before, 'video-04').task_id!;
    expect(row.state).toBe('downloaded');
    expect(row.task_id).toBe(taskId);
    expect(requestsAfter.some((r) => r.path === `/v1/videos/${taskId}/content`)).toBe(true);
    expect(sha256(readFileSync(row.output!))).toBe(SERVED_SHA256);
    const prompt = campaign.rows.find((r) => r.id === 'video-04')!.prompt;
    expect(sim.ledger.tasks.filter((t) => t.prompt === prompt)).toHaveLength(1);
  });

  test('succeeded chat and responses -> their results.jsonl lines are back, identical, once each', () => {
    const lines = readFileSync(`${dir}/out/results.jsonl`, 'utf8').split('\n').filter(Boolean);
    const ids = lines.map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
    // Every answered text row, once; not the uncertain one. (Videos on disk have their lines too.)
    expect(ids.filter((id) => !id.startsWith('video-')).sort()).toEqual([
      'chat-02',
      'chat-03',
      'chat-04',
      'resp-01',
      'resp-02',
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const line of lines) {
      const id = (JSON.parse(line) as { custom_id: string }).custom_id;
      expect(line, id).toBe(originalResults.get(id));
    }
    for (const id of ['chat-02', 'resp-01']) expect(item(after, id).state).toBe('downloaded');
  });

  test('downloaded rows are left alone: no request for their tasks, files untouched', () => {
    for (const id of UNTOUCHED_VIDEOS) {
      const taskId = item(before, id).task_id!;
      expect(
        requestsAfter.filter((r) => r.path.includes(taskId)).map((r) => r.path),
        id,
      ).toEqual([]);
      expect(statSync(item(after, id).output!).mtimeMs).toBe(untouchedMtimes.get(id));
    }
  });

  test('the operator resolves the uncertain rows from the ledger; the next run finishes and reconciles', async () => {
    const videoTask = sim.ledger.tasks.find(
      (t) => t.prompt === campaign.rows.find((r) => r.id === 'video-01')!.prompt,
    )!;
    const attach = await gbatch(['resolve', '--state', `${dir}/j.db`, 'video-01', '--task-id', videoTask.id], gateway);
    expect(attach.code, describeEnd('resolve --task-id', attach)).toBe(0);
    const resend = await gbatch(['resolve', '--state', `${dir}/j.db`, 'chat-01', '--resubmit'], gateway);
    expect(resend.code, describeEnd('resolve --resubmit', resend)).toBe(0);
    const last = await gbatch(runArgs(campaign.jobFile, dir), gateway);
    expect(last.code, describeEnd('last run', last)).toBe(0);
    proveCampaign({
      campaign,
      sim,
      apiKey: API_KEY,
      report: await readReport(`${dir}/j.db`, gateway),
      outDir: `${dir}/out`,
      // chat-01's first call was charged and its answer lost in the seeded crash; the resend is the second.
      lostChargedCalls: new Map([['chat-01', 1]]),
      history: `seeded states: ${JSON.stringify(SEEDED)}`,
      workDir: dir,
      printed: [restart, attach, resend, last].map((e) => e.stdout + e.stderr).join(''),
    });
  });
});
