// The forecast a job starts with, against what it was billed. A gateway that delivers (and bills) 480p videos at
// 720p: a first job teaches the history; `history import` brings it into a second job's journal; the second job's
// first run keeps its forecast in the journal before it sends (stopping short under a budget, so `status` shows
// it while rows remain), a later run carries it over unchanged, and the report sets each model's P50/P90 against
// the model's bill: every figure checked against the journal's own numbers, none hard-coded.
import { describe, expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { forecastRun, startDearerGateway, videoThenChats } from '../../helpers/forecast-jobs.js';
import { writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { openQueries } from '../../../src/journal/open-store.js';
import { startForecastOf, type StartForecast } from '../../../src/core/start-forecast.js';

/** What the journal itself holds: the forecast its record keeps, and each model's billed sum and estimate. */
async function journalFacts(
  state: string,
  job: string,
): Promise<{ forecast: StartForecast | undefined; billed: Map<string, number>; estimated: Map<string, number> }> {
  const journal = await openQueries(state, { job });
  try {
    const billed = new Map<string, number>();
    const estimated = new Map<string, number>();
    for await (const item of journal.iterate()) {
      billed.set(item.model, (billed.get(item.model) ?? 0) + (item.actualUsd ?? 0));
      estimated.set(item.model, (estimated.get(item.model) ?? 0) + item.estimateUsd);
    }
    return { forecast: startForecastOf((await journal.getJob())?.options), billed, estimated };
  } finally {
    await journal.close();
  }
}

describe.skipIf(!BUILT)('the report: the forecast at the start against the bill, per model', () => {
  test('learned from an imported history; kept before the first send, shown by status, carried over', async () => {
    const ws = workspace();
    const gw = await startDearerGateway();
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const state = (job: string) => ws.path(`${job}.db`);
    const run = forecastRun(ws, env, (job) => ['--state', state(job)]);

    // No history: the report says the table's estimate was used.
    const fresh = writeJsonl(ws.path('fresh.jsonl'), videoThenChats('f', 2));
    expect(stdoutJson(await run(fresh, 'fresh')).exit_code).toBe(0);
    const [freshJson, freshText] = await Promise.all([
      runCli(['report', '--state', state('fresh'), '--format', 'json']),
      runCli(['report', '--state', state('fresh')]),
    ]);
    const freshReport = stdoutJson(freshJson);
    const freshFacts = await journalFacts(state('fresh'), 'fresh');
    for (const [model, f] of Object.entries(freshReport.forecast.by_model as Record<string, any>)) {
      expect(f.basis_rows, model).toBe(0);
      // Without history the forecast is the table's estimate of the model's rows.
      expect(f.p50_usd, model).toBeCloseTo(freshFacts.estimated.get(model)!, 6);
    }
    const freshTable = freshText.stdout;
    expect(freshTable).toMatch(/Forecast at the start \(.*\) against the bill:/);
    expect(freshTable).toMatch(/no history: table estimate/);

    // The second job learns from the first (the fresh job is the teacher) through `history import`.
    const second = writeJsonl(ws.path('second.jsonl'), videoThenChats('s', 6));
    const imported = await runCli(['history', 'import', state('fresh'), '--state', state('second')]);
    expect(imported.code, imported.stderr).toBe(0);
    const plan = stdoutJson(await runCli(['plan', second, '--state', state('second'), '--json'], { env }));
    // Stopped short by a budget of half the estimate: rows remain, and status shows the kept forecast.
    const budget = Math.round(plan.estimated_usd * 0.5 * 1e6) / 1e6;
    const short = stdoutJson(await run(second, 'second', ['--budget', String(budget)]));
    expect(short.exit_code).toBe(3);
    const kept = (await journalFacts(state('second'), 'second')).forecast!;
    expect(kept.total.basisRows).toBeGreaterThan(0);
    // The same Monte Carlo as plan's, over the same rows and history.
    expect(kept.total.p50Usd).toBeCloseTo(plan.forecast.p50_usd, 6);
    expect(kept.total.p90Usd).toBeCloseTo(plan.forecast.p90_usd, 6);
    const [statusJson, statusRead] = await Promise.all([
      runCli(['status', '--state', state('second'), '--json']),
      runCli(['status', '--state', state('second')]),
    ]);
    const status = stdoutJson(statusJson);
    expect(status.counts.deferred).toBeGreaterThan(0);
    expect(status.forecast).toEqual({
      made_at: new Date(kept.at).toISOString(),
      p50_usd: kept.total.p50Usd,
      p90_usd: kept.total.p90Usd,
      basis_rows: kept.total.basisRows,
      rows_without_history: kept.total.rowsWithoutHistory,
    });
    const statusText = statusRead.stdout;
    expect(statusText).toContain(`Forecast at the start (${new Date(kept.at).toISOString()}): P50 $`);

    // The next run finishes the job and keeps the forecast the job started with.
    expect(stdoutJson(await run(second, 'second', ['--no-budget'])).exit_code).toBe(0);
    const facts = await journalFacts(state('second'), 'second');
    expect(facts.forecast).toEqual(kept);
    const [finalStatus, reportJson, tableRead, htmlRead] = await Promise.all([
      runCli(['status', '--state', state('second'), '--json']),
      runCli(['report', '--state', state('second'), '--format', 'json']),
      runCli(['report', '--state', state('second')]),
      runCli(['report', '--state', state('second'), '--format', 'html']),
    ]);
    expect(stdoutJson(finalStatus).forecast).toBeNull();

    const report = stdoutJson(reportJson);
    const byModel = report.forecast.by_model as Record<string, any>;
    expect(Object.keys(byModel).sort()).toEqual([...facts.billed.keys()].sort());
    const placed: string[] = [];
    for (const [model, f] of Object.entries(byModel)) {
      const k = kept.models[model]!;
      const actual = facts.billed.get(model)!;
      expect(f.p50_usd, model).toBe(k.p50Usd);
      expect(f.p90_usd, model).toBe(k.p90Usd);
      expect(f.basis_rows, model).toBe(k.basisRows);
      expect(f.basis_rows, model).toBeGreaterThan(0);
      expect(f.actual_usd, model).toBeCloseTo(actual, 6);
      const where = actual < k.p50Usd - 1e-9 ? 'below_p50' : actual <= k.p90Usd + 1e-9 ? 'p50_to_p90' : 'above_p90';
      expect(f.actual_vs_forecast, model).toBe(where);
      placed.push(where);
    }
    // The sum of the models' bills is the job's bill, and the gateway's.
    expect([...facts.billed.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(report.totals.actual_usd, 6);
    // The video was billed dearer than its table estimate, and the learned forecast knew it.
    const video = Object.keys(byModel).find((m) => m.startsWith('video'))!;
    expect(facts.billed.get(video)!).toBeGreaterThan(facts.estimated.get(video)! + 0.01);
    expect(byModel[video].p90_usd).toBeGreaterThan(facts.estimated.get(video)! + 0.01);

    const table = tableRead.stdout;
    expect(table).toMatch(/settled row\(s\) like these/);
    const html = htmlRead.stdout;
    expect(html).toContain('<section id="forecast">');
    expect(html).toContain(
      `data-path="${JSON.stringify(['forecast', 'by_model', video, 'p90_usd']).replace(/"/g, '&quot;')}"`,
    );
    expect(placed.length).toBeGreaterThan(0);
  }, 120_000);
});
