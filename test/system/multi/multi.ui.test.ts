// `gbatch ui` over a PostgreSQL journal while three runners share one job, and after they end: the jobs
// list and the job's page state the figures `report --format json` and `status --json` give for the same
// journal at the same moment, the runners with their leases, and a second job of the same database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson, type RunningCli } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { parseExposition } from '../../helpers/prometheus-text.js';
import { runnerArgs } from '../../helpers/runners.js';
import { bearer, jobRowFigures, pageFigures, reportValue, startUiChild } from '../../helpers/ui.js';

const API_KEY = 'sk-multi-ui';
const CHATS = 6;
const VIDEOS = 6;
const TASK_SECONDS = 60;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-ui-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable() || !BUILT)('gbatch ui over a PostgreSQL journal with three runners', () => {
  const db = usePgSchema('gbatch_multi_ui');

  test('live and finished, the page and the list agree with report and status', async () => {
    // The simulator's clock stands still: the video tasks stay in progress, held by their runners, until it moves.
    let simNow = Date.now();
    const sim = await startSimulator({
      accounts: [{ key: API_KEY, balanceUsd: 100 }],
      seed: 29,
      taskSeconds: TASK_SECONDS,
      clock: { now: () => simNow },
    });
    const env = gatewayEnv(sim.baseUrl, API_KEY);
    const ui = await startUiChild(['--journal', db.url()]).catch(async (err: unknown) => {
      await sim.close();
      throw err;
    });
    try {
      const small = writeJsonl(join(dir, 'warmup.jsonl'), [chatRow('w0', 'warm up')]);
      expect((await runCli(runnerArgs(small, db.url(), join(dir, 'out-w')), { env })).code).toBe(0);

      const manifest = writeJsonl(join(dir, 'nightly.jsonl'), [
        ...Array.from({ length: CHATS }, (_, i) => chatRow(`c${i}`, `Say hello number ${i}`)),
        ...Array.from({ length: VIDEOS }, (_, i) => videoRow(`v${i}`, `A night scene, take ${i}`)),
      ]);
      const args = runnerArgs(manifest, db.url(), join(dir, 'out'), ['--concurrency', '2', '--budget', '5']);
      const runners: RunningCli[] = Array.from({ length: 3 }, () => startCli(args, { env }));
      await sim.ledger.reached(
        (l) =>
          l.requests.filter((r) => r.method === 'POST').length >= 1 + CHATS + VIDEOS &&
          l.requests.filter((r) => r.method === 'GET' && /\/video\/generations\/./.test(r.path)).length >= VIDEOS,
      );
      // Every chat answered and written, every task accepted and in progress: nothing moves until the clock does.
      const settled = async () => {
        const status = stdoutJson(await runCli(['status', 'nightly', '--journal', db.url(), '--json']));
        return status.counts.downloaded === CHATS ? status : undefined;
      };
      await expect.poll(settled, { timeout: 30_000 }).toBeDefined();
      await compare('running');
      const page = await (await fetch(`${ui.url}jobs/nightly`, { headers: bearer() })).text();
      const live = [...page.matchAll(/<tr data-runner="[^"]+">[\s\S]*?<\/tr>/g)].filter((m) => m[0].includes('>live<'));
      const holding = stdoutJson(await runCli(['status', 'nightly', '--journal', db.url(), '--json'])).runners.filter(
        (r: { alive?: boolean; liveness?: { alive: boolean } }) => r.liveness?.alive ?? r.alive,
      );
      expect(live.length).toBe(holding.length);
      expect(live.length).toBeGreaterThan(0);

      simNow += (TASK_SECONDS + 1) * 1000;
      for (const end of await Promise.all(runners.map((r) => r.result))) expect(end.code, end.stderr).toBe(0);
      await compare('finished');
    } finally {
      await ui.stop();
      await sim.close();
    }

    async function compare(standing: string): Promise<void> {
      const [report, status, list, page, scrape] = await Promise.all([
        runCli(['report', 'nightly', '--journal', db.url(), '--format', 'json']).then((r) => stdoutJson(r)),
        runCli(['status', 'nightly', '--journal', db.url(), '--json']).then((r) => stdoutJson(r)),
        fetch(ui.url, { headers: bearer() }).then((r) => r.text()),
        fetch(`${ui.url}jobs/nightly`, { headers: bearer() }).then((r) => r.text()),
        fetch(`${ui.url}metrics`, { headers: bearer() }).then((r) => r.text()),
      ]);
      const metrics = parseExposition(scrape);
      const label = { job_name: 'nightly' };
      expect(metrics.sum('gbatch_rows', label)).toBe(CHATS + VIDEOS);
      for (const [state, rows] of Object.entries(status.counts as Record<string, number>))
        expect(metrics.sum('gbatch_rows', { ...label, state }), state).toBe(rows);
      expect(metrics.value('gbatch_spend_usd', label)).toBe(report.totals.actual_usd);
      expect(metrics.value('gbatch_reserved_usd', label)).toBe(report.totals.reserved_usd);
      expect(metrics.value('gbatch_budget_usd', label)).toBe(report.totals.budget_usd);
      const row = jobRowFigures(list, 'nightly');
      expect(row.standing).toBe(standing);
      for (const field of ['actual_usd', 'reserved_usd', 'estimated_usd', 'delta_usd', 'budget_usd'] as const) {
        expect(Number(row[field]), field).toBe(report.totals[field]);
        expect(Number(row[field]), field).toBe(status[field] ?? report.totals[field]);
      }
      expect(Number(row.items)).toBe(CHATS + VIDEOS);
      const figures = pageFigures(page);
      expect(figures.length).toBeGreaterThan(15);
      for (const [path, value] of figures) expect(value, JSON.stringify(path)).toEqual(reportValue(report, path));
      for (const [state, rows] of Object.entries(status.counts as Record<string, number>))
        if (rows > 0) expect(reportValue(report, ['totals', 'by_state', state])).toBe(rows);
      expect(jobRowFigures(list, 'warmup').standing).toBe('finished');
    }
  }, 90_000);
});
