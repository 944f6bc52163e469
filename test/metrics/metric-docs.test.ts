// The metric names the code publishes, the reference's table and the Grafana dashboard agree: a
// renamed metric that the docs or the dashboard still name fails here, not on an operator's screen.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { METRIC } from '../../src/metrics/metric-names.js';
import { ROOT } from '../helpers/workspace.js';

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

test('the dashboard queries only published names, and shows every one but the run start time', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs', 'grafana-dashboard.json'), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
  };
  const used = new Set<string>();
  for (const panel of dashboard.panels)
    for (const target of panel.targets ?? [])
      for (const match of target.expr.matchAll(/\bgbatch_[a-z_]+/g)) used.add(metricOf(match[0]));
  for (const name of used) expect(NAMES, name).toContain(name);
  expect([...NAMES].filter((name) => !used.has(name))).toEqual([METRIC.startTime]);
});
