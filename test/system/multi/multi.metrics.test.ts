// Three runners of one job on a PostgreSQL journal, each with --metrics-port 0 and the same
// --push-metrics: every runner serves the job's figures behind its tokens while it holds work, and the
// Pushgateway gets the job's final figures once (from its last runner), equal to status and report.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { ITEM_KINDS, ITEM_STATES } from '../../../src/core/states.js';
import { openQueries, type Item } from '../../../src/journal/index.js';
import { tallyByKind } from '../../helpers/journal-read.js';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson, type RunningCli } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { parseExposition, rowsByKind, type Exposition } from '../../helpers/prometheus-text.js';
import { startPushReceiver } from '../../helpers/pushgateway-receiver.js';
import { runnerArgs, type ReportJson } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-metrics';
const TOKEN = 'tok-multi-metrics';
const CHATS = 6;
const VIDEOS = 6;
const ROWS = CHATS + VIDEOS;
const TASK_SECONDS = 60;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rowsByState(metrics: Exposition): Record<string, number | undefined> {
  return Object.fromEntries(ITEM_STATES.map((state) => [state, metrics.sum('gbatch_rows', { state })]));
}

describe.skipIf(!pgAvailable() || !BUILT)('metrics of three runners on one PostgreSQL journal', () => {
  const db = usePgSchema('gbatch_multi_metrics');

  test('each runner holding work serves the job; the last pushes the final figures once', async () => {
    // The simulator's clock stands still: the video tasks stay in progress, held by their runners, until it moves.
    let simNow = Date.now();
    const sim = await startSimulator({
      accounts: [{ key: API_KEY, balanceUsd: 100 }],
      seed: 23,
      taskSeconds: TASK_SECONDS,
      clock: { now: () => simNow },
    });
    const push = await startPushReceiver();
    try {
      const manifest = writeJsonl(join(dir, 'nightly.jsonl'), [
        ...Array.from({ length: CHATS }, (_, i) => chatRow(`c${i}`, `Say hello number ${i}`)),
        ...Array.from({ length: VIDEOS }, (_, i) => videoRow(`v${i}`, `A night scene, take ${i}`)),
      ]);
      const args = runnerArgs(manifest, db.url(), join(dir, 'out'), [
        '--concurrency',
        '2',
        '--budget',
        '5',
        '--metrics-port',
        '0',
        '--push-metrics',
        push.url,
      ]);
      const env = { ...gatewayEnv(sim.baseUrl, API_KEY), GBATCH_METRICS_TOKENS: TOKEN };
      const runners: RunningCli[] = Array.from({ length: 3 }, () => startCli(args, { env }));
      const urls = await Promise.all(
        runners.map(
          async (r) => /(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(await r.stderrMatching(/metrics: serving/))![1]!,
        ),
      );
      expect(new Set(urls).size).toBe(3);
      await sim.ledger.reached(
        (l) =>
          l.requests.filter((r) => r.method === 'POST').length >= ROWS &&
          l.requests.filter((r) => r.method === 'GET' && /\/video\/generations\/./.test(r.path)).length >= VIDEOS,
      );

      // The runners holding the tasks cannot end before the clock moves: scrape each of them.
      const status = stdoutJson(await runCli(['status', 'nightly', '--journal', db.url(), '--json']));
      const holders = (status.runners as Array<{ pid: number; rows: number }>).filter((r) => r.rows > 0);
      expect(holders.length).toBeGreaterThan(0);
      for (const holder of holders) {
        const url = urls[runners.findIndex((r) => r.child.pid === holder.pid)]!;
        expect((await fetch(url)).status).toBe(401);
        const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(res.status).toBe(200);
        const live = parseExposition(await res.text());
        expect(live.sum('gbatch_rows')).toBe(ROWS);
        expect(live.sum('gbatch_rows', { kind: 'video' })).toBe(VIDEOS);
        expect(live.value('gbatch_budget_usd')).toBe(5);
        expect(live.value('gbatch_run_phase', { phase: 'done' })).toBe(0);
      }

      simNow += (TASK_SECONDS + 1) * 1000;
      const ends = await Promise.all(runners.map((r) => r.result));
      for (const end of ends) expect(end.code, end.stderr).toBe(0);
      const printed = ends.map((e) => e.stderr).join('');
      expect(printed.match(/metrics push left to the job's last runner/g)).toHaveLength(2);
      expect(printed).not.toMatch(/metrics not pushed/);

      expect(push.received.map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /metrics/job/gbatch/instance/nightly']);
      const final = parseExposition(push.received[0]!.body);
      expect(final.value('gbatch_last_success_timestamp_seconds')).toBeGreaterThan(0);
      const after = stdoutJson(await runCli(['status', 'nightly', '--journal', db.url(), '--json']));
      const report = stdoutJson<ReportJson>(
        await runCli(['report', 'nightly', '--journal', db.url(), '--format', 'json']),
      );
      expect(rowsByState(final)).toEqual(Object.fromEntries(ITEM_STATES.map((s) => [s, after.counts[s] ?? 0])));
      expect(final.sum('gbatch_rows', { state: 'downloaded' })).toBe(ROWS);
      const journal = await openQueries(db.url(), { job: 'nightly' });
      const items: Item[] = [];
      try {
        for await (const item of journal.iterate()) items.push(item);
      } finally {
        await journal.close();
      }
      expect(rowsByKind(final, ITEM_KINDS, ITEM_STATES)).toEqual(tallyByKind(items));
      expect(final.value('gbatch_rows', { kind: 'video', state: 'downloaded' })).toBe(VIDEOS);
      expect(final.value('gbatch_spend_usd')).toBe(after.actual_usd);
      expect(final.value('gbatch_reserved_usd')).toBe(after.reserved_usd);
      expect(final.value('gbatch_budget_usd')).toBe(after.budget_usd);
      expect(final.value('gbatch_spend_usd')).toBe(report.totals.actual_usd);
      expect(final.value('gbatch_reserved_usd')).toBe(report.totals.reserved_usd);
      expect(final.value('gbatch_budget_usd')).toBe(report.totals.budget_usd);
    } finally {
      await sim.close();
    }
  }, 90_000);
});
