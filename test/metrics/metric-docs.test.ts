// The metric names the code publishes, the reference's table and the Grafana dashboard agree: a
// renamed metric that the docs or the dashboard still name fails here, not on an operator's screen.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { JOB_LABEL, METRIC } from '../../src/metrics/metric-names.js';
import { EventEmitter } from 'node:events';
import { ROOT } from '../helpers/workspace.js';
import type { RunEvents } from '../../src/pipeline/context.js';
import { journalMetrics } from '../../src/metrics/journal-metrics.js';
import { RunMetrics } from '../../src/metrics/run-metrics.js';
import { serverBudgetMetrics } from '../../src/metrics/server-budget-metrics.js';
import { serverBudget } from '../../src/core/server-budget.js';
import { START_FORECAST_KEY, type StartForecast } from '../../src/core/start-forecast.js';
import { dashboardProblems, exportedLabels, type Dashboard } from '../helpers/dashboard-check.js';
import { entry, makeItem, useTempDir } from '../helpers/journal-fixtures.js';
import { openSqliteStore } from '../helpers/journal-raw.js';
import { parseExposition } from '../helpers/prometheus-text.js';
import { counts, snapshot, T0 } from '../helpers/snapshot-fixture.js';

const temp = useTempDir('gbatch-metric-docs-');

const NAMES = new Set<string>(Object.values(METRIC));
const HISTOGRAMS = new Set<string>([METRIC.taskDuration, METRIC.commitDuration]);

/** A series name back to its metric: a histogram's _bucket, _sum and _count are the histogram. */
function metricOf(series: string): string {
  const base = series.replace(/_(bucket|sum|count)$/, '');
  return HISTOGRAMS.has(base) ? base : series;
}

test('every metric has a row in the reference, and every name there exists', () => {
  const reference = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');
  const section = reference.slice(reference.indexOf('### Metrics'), reference.indexOf('### Per-model limits'));
  const rows = [...section.matchAll(/^\| `(gbatch_[a-z_]+)` \|/gm)].map((m) => m[1]!);
  expect(new Set(rows)).toEqual(NAMES);
  expect(rows).toHaveLength(NAMES.size);
});

function dashboard(): Dashboard & { panels: Array<{ targets?: Array<{ expr: string }> }> } {
  return JSON.parse(readFileSync(join(ROOT, 'docs', 'grafana-dashboard.json'), 'utf8')) as ReturnType<typeof dashboard>;
}

test('the dashboard shows every published name but the run start time', () => {
  const used = new Set<string>();
  for (const panel of dashboard().panels)
    for (const target of panel.targets ?? [])
      for (const match of target.expr.matchAll(/\bgbatch_[a-z_]+/g)) used.add(metricOf(match[0]));
  for (const name of used) expect(NAMES, name).toContain(name);
  expect([...NAMES].filter((name) => !used.has(name))).toEqual([METRIC.startTime]);
});

/** What the three exporters print with every series present: a run's (events by hand) and a journal's. */
async function exported(): Promise<Map<string, Set<string>>> {
  const events = new EventEmitter<RunEvents>();
  const run = new RunMetrics(
    () => T0,
    async () => ({ chat: counts({ pending: 1 }), responses: counts(), video: counts({ running: 1 }) }),
  );
  run.attach(events);
  events.emit('snapshot', snapshot());
  events.emit('request', { lane: 'submit', status: 429 });
  events.emit('transition', makeItem({ id: 'c1', state: 'succeeded' }), 'submitting');
  events.emit('commit', 0.002, 3);
  events.emit('lease', 'renewed');
  run.markSuccess(T0);
  const path = join(temp.dir(), 'job.db');
  const store = openSqliteStore(path);
  try {
    // The forecast the job started with: the journal exporter publishes it only when the job keeps one.
    const forecast = { p50Usd: 1.2, p90Usd: 1.5, basisRows: 40, rowsWithoutHistory: 0 };
    const kept: StartForecast = { at: T0, total: forecast, models: { 'gpt-4o-mini': forecast } };
    await store.saveJob({
      name: 'nightly',
      manifest: 'm.jsonl',
      options: { [START_FORECAST_KEY]: kept },
      budgetUsd: 5,
    });
    const writer = await store.beginIngest();
    await writer.add([entry('c1'), entry('v1', { kind: 'video' })]);
    await writer.commit();
    await store.membership.acquire();
    const fromJournal = journalMetrics({ jobs: async () => [{ job: 'nightly', queries: store }] });
    const server = await serverBudgetMetrics(serverBudget(10, [{ actualUsd: 1, reservedUsd: 0.5 }]));
    return exportedLabels([
      parseExposition(await run.text()),
      parseExposition(await fromJournal.metrics()),
      parseExposition(server),
    ]);
  } finally {
    await store.close();
  }
}

test('every PromQL expression of the dashboard names only metrics and labels the exporters print', async () => {
  const labels = await exported();
  for (const name of NAMES) expect([...labels.keys()], name).toContain(name);
  expect(dashboardProblems(dashboard(), labels, [JOB_LABEL])).toEqual([]);
});

test('a broken name in the dashboard is caught: metric, matcher, grouping, legend, variable', async () => {
  const labels = await exported();
  const broken = (edit: (text: string) => string): string[] =>
    dashboardProblems(JSON.parse(edit(JSON.stringify(dashboard()))) as Dashboard, labels, [JOB_LABEL]);
  expect(broken((t) => t.replace('sum(gbatch_spend_usd{', 'sum(gbatch_spent_usd{'))).toEqual([
    expect.stringContaining('no exporter publishes gbatch_spent_usd'),
  ]);
  expect(broken((t) => t.replace('sum by (state) (gbatch_rows{', 'sum by (status) (gbatch_rows{'))).toEqual([
    expect.stringContaining('grouped by status'),
  ]);
  expect(broken((t) => t.replace('gbatch_requests_total{instance=~', 'gbatch_requests_total{instanse=~'))).toEqual([
    expect.stringContaining('gbatch_requests_total has no label instanse'),
  ]);
  expect(broken((t) => t.replace('"{{kind}} {{state}}"', '"{{kind}} {{phase}}"'))).toEqual([
    expect.stringContaining('legend {{phase}}'),
  ]);
  expect(broken((t) => t.replace('label_values(gbatch_rows, job_name)', 'label_values(gbatch_rows, job)'))).toEqual([]);
  expect(broken((t) => t.replace('label_values(gbatch_rows, job_name)', 'label_values(gbatch_rows, batch)'))).toEqual([
    'variable job_name: gbatch_rows has no label batch',
  ]);
  // A filter variable only on labels some exporter prints, and only as `=~"$var"`.
  expect(broken((t) => t.replaceAll('job_name=~\\"$job_name\\"', 'job_name=\\"nightly\\"')).length).toBeGreaterThan(0);
});
