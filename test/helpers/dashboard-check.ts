// What a Grafana dashboard's PromQL names that no exporter publishes: metric names, label matchers, `by`
// and `without` labels, legend labels and the variables' label_values(). No Grafana or Prometheus here:
// the dashboard is checked against the series the exporters actually print.

/** Labels every scraped or pushed series gets besides its own: Prometheus's target labels. */
export const TARGET_LABELS = ['instance', 'job'] as const;

export interface Dashboard {
  panels: Array<{ title?: string; targets?: Array<{ expr: string; legendFormat?: string }> }>;
  templating?: { list?: Array<{ name: string; query?: string | { query?: string } }> };
}

/**
 * The problems of `dashboard` against `exported` (metric family -> the labels its series carry, from any
 * exporter). `filters` are labels a dashboard-wide variable matches with `=~"$var"` on every selector: a
 * series without the label still matches its `All` (`.*`), so they are allowed on any metric that some
 * exporter labels with them.
 */
export function dashboardProblems(
  dashboard: Dashboard,
  exported: ReadonlyMap<string, ReadonlySet<string>>,
  filters: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  const labelled = new Set([...exported.values()].flatMap((labels) => [...labels]));
  const familyOf = (series: string): string | undefined => {
    if (exported.has(series)) return series;
    const base = series.replace(/_(bucket|sum|count)$/, '');
    return exported.has(base) ? base : undefined;
  };
  const labelsOf = (series: string): Set<string> => {
    const family = familyOf(series)!;
    const labels = new Set([...exported.get(family)!, ...TARGET_LABELS]);
    if (series.endsWith('_bucket') && family !== series) labels.add('le');
    else labels.delete('le');
    return labels;
  };
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) {
      const where = `${panel.title ?? '?'}: ${target.expr}`;
      const metrics: string[] = [];
      for (const match of target.expr.matchAll(/\b(gbatch_[a-z_]+)\s*(?:\{([^}]*)\})?/g)) {
        const [, series, matchers] = match;
        if (familyOf(series!) === undefined) {
          problems.push(`${where}: no exporter publishes ${series}`);
          continue;
        }
        metrics.push(series!);
        for (const m of (matchers ?? '').matchAll(/([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
          const [, label, op, value] = m;
          if (labelsOf(series!).has(label!)) continue;
          const filter = filters.includes(label!) && op === '=~' && value === `$${label}` && labelled.has(label!);
          if (!filter) problems.push(`${where}: ${series} has no label ${label}`);
        }
      }
      const available = new Set(metrics.flatMap((series) => [...labelsOf(series)]));
      for (const clause of target.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
        for (const label of clause[1]!.split(',').map((l) => l.trim()))
          for (const series of metrics)
            if (label !== '' && !labelsOf(series).has(label) && !filters.includes(label))
              problems.push(`${where}: grouped by ${label}, which ${series} does not have`);
      for (const legend of (target.legendFormat ?? '').matchAll(/\{\{\s*([a-zA-Z_]\w*)\s*\}\}/g))
        if (!available.has(legend[1]!) && !filters.includes(legend[1]!))
          problems.push(`${where}: legend {{${legend[1]}}} names a label no series here has`);
    }
  }
  for (const variable of dashboard.templating?.list ?? []) {
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    const match = /label_values\(\s*(gbatch_[a-z_]+)\s*,\s*([a-zA-Z_]\w*)\s*\)/.exec(query ?? '');
    if (!match) continue;
    const [, series, label] = match;
    if (familyOf(series!) === undefined) problems.push(`variable ${variable.name}: no exporter publishes ${series}`);
    else if (!labelsOf(series!).has(label!))
      problems.push(`variable ${variable.name}: ${series} has no label ${label}`);
  }
  return problems;
}

/** Metric family -> labels, from expositions the exporters printed (parsed with prometheus-text.ts). */
export function exportedLabels(
  expositions: ReadonlyArray<{
    types: Map<string, string>;
    samples: Array<{ name: string; labels: Record<string, string> }>;
  }>,
): Map<string, Set<string>> {
  const exported = new Map<string, Set<string>>();
  for (const { types, samples } of expositions) {
    for (const family of types.keys()) if (!exported.has(family)) exported.set(family, new Set());
    for (const sample of samples) {
      const family = types.has(sample.name) ? sample.name : sample.name.replace(/_(bucket|sum|count)$/, '');
      const labels = exported.get(family) ?? new Set<string>();
      for (const label of Object.keys(sample.labels)) if (label !== 'le') labels.add(label);
      exported.set(family, labels);
    }
  }
  return exported;
}
