// The report's charts: Observable Plot specs rendered to static SVG when the report is written, on a
// server-side document (linkedom). The page needs no script to show them, and they print as drawn.
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import { printable } from '../../core/printable.js';
import type { ItemState } from '../../core/states.js';
import type { ReportGroup } from '../model.js';
import type { Timeline } from '../timeline.js';

const WIDTH = 1000;
/** Charts side by side in the page's two-column row. */
const HALF_WIDTH = 480;
const INK = '#1f2937';
const ESTIMATE = '#9ca3af';
const ACTUAL = '#2563eb';
const OVER = '#dc2626';
const PAUSE = '#f59e0b';
const SENT = '#94a3b8';

/** The throughput chart's key, drawn by the page (the marks use fixed colours, not a scale). */
export const THROUGHPUT_KEY: ReadonlyArray<readonly [string, string]> = [
  ['rows finished', ACTUAL],
  ['rows sent', SENT],
  ['429 pause', PAUSE],
  ['5xx burst', OVER],
];

export const STATE_COLORS: Record<ItemState, string> = {
  pending: '#cbd5e1',
  submitting: '#93c5fd',
  submitted: '#60a5fa',
  running: '#3b82f6',
  succeeded: '#34d399',
  downloaded: '#059669',
  failed: '#dc2626',
  rejected: '#f97316',
  invalid: '#6b7280',
  uncertain: '#a855f7',
  deferred: '#eab308',
  cancelled: '#9ca3af',
};

type PlotDocument = NonNullable<Plot.PlotOptions['document']>;
let shared: PlotDocument | undefined;
function document(): PlotDocument {
  shared ??= parseHTML('<!doctype html><html><head></head><body></body></html>').document as unknown as PlotDocument;
  return shared;
}

/** Renders a Plot spec to SVG markup (a figure when Plot adds a legend). */
export function render(options: Plot.PlotOptions): string {
  const node = Plot.plot({
    document: document(),
    width: WIDTH,
    style: { fontSize: '11px', color: INK, background: 'transparent' },
    ...options,
  });
  return (node as unknown as { outerHTML: string }).outerHTML;
}

// Plot escapes markup; control characters in a model name are made visible here.
const dollars = (v: number): string => `$${v.toFixed(v !== 0 && Math.abs(v) < 0.005 ? 6 : 2)}`;

/** Time axes in UTC, as every time in the report; seconds only where the job is short. */
function timeAxis(timeline: Timeline): Plot.ScaleOptions {
  const span = (timeline.endedAt ?? 0) - (timeline.startedAt ?? 0);
  return {
    type: 'utc',
    label: 'UTC',
    ticks: 8,
    tickFormat: span > 2 * 86_400_000 ? '%b %d %H:%M' : span > 3_600_000 ? '%H:%M' : '%H:%M:%S',
  };
}

const label = (g: Pick<ReportGroup, 'model' | 'resolution'>): string =>
  printable(g.resolution ? `${g.model} ${g.resolution}` : g.model);

/** Settled estimate against actual, per model and resolution; a group that cost more than its estimate in red. */
export function estimateVsActualChart(groups: readonly ReportGroup[]): string {
  const data = groups.flatMap((g) => {
    const settledEstimate = g.actual_usd - g.delta_usd;
    return [
      { group: label(g), bar: 'estimate', series: 'estimate (settled rows)', usd: settledEstimate },
      {
        group: label(g),
        bar: 'actual',
        series: g.delta_usd > 1e-9 ? 'actual (over estimate)' : 'actual',
        usd: g.actual_usd,
      },
    ];
  });
  return render({
    height: Math.max(120, 44 * groups.length + 50),
    marginLeft: 150,
    marginRight: 60,
    x: { label: 'USD', grid: true },
    y: { label: null, axis: null, domain: ['estimate', 'actual'] },
    fy: { label: null },
    color: {
      domain: ['estimate (settled rows)', 'actual', 'actual (over estimate)'],
      range: [ESTIMATE, ACTUAL, OVER],
      legend: true,
    },
    marks: [
      Plot.barX(data, { fy: 'group', y: 'bar', x: 'usd', fill: 'series' }),
      Plot.text(data, {
        fy: 'group',
        y: 'bar',
        x: 'usd',
        text: (d: { usd: number }) => dollars(d.usd),
        dx: 4,
        textAnchor: 'start',
        fill: INK,
      }),
      Plot.ruleX([0]),
    ],
  });
}

/** Settled spend over time, against the budget and the estimate. */
export function spendChart(timeline: Timeline, budgetUsd: number | null, estimatedUsd: number): string {
  const points =
    timeline.startedAt === undefined
      ? []
      : [
          { at: new Date(timeline.startedAt), usd: 0 },
          ...timeline.spend.map((p) => ({ at: new Date(p.at), usd: p.usd })),
        ];
  const end = timeline.endedAt === undefined ? undefined : new Date(timeline.endedAt);
  if (end && points.length > 0) points.push({ at: end, usd: points[points.length - 1]!.usd });
  const lines: Array<{ y: number; text: string; color: string }> = [
    { y: estimatedUsd, text: `estimate $${estimatedUsd.toFixed(2)}`, color: ESTIMATE },
  ];
  const top = Math.max(estimatedUsd, points.at(-1)?.usd ?? 0);
  // A budget far above what was spent would flatten the line: then it is named, not drawn.
  const budgetFar = budgetUsd !== null && budgetUsd > 3 * top && top > 0;
  if (budgetUsd !== null && !budgetFar)
    lines.push({ y: budgetUsd, text: `budget $${budgetUsd.toFixed(2)}`, color: OVER });
  return render({
    height: 220,
    marginLeft: 60,
    marginRight: 20,
    x: timeAxis(timeline),
    y: { label: 'USD settled', grid: true, domain: [0, Math.max(...lines.map((l) => l.y), top) * 1.08 || 1] },
    marks: [
      ...(budgetFar
        ? [
            Plot.text([`budget $${budgetUsd!.toFixed(2)}: above this scale`], {
              frameAnchor: 'top-right',
              dy: 2,
              fill: OVER,
            }),
          ]
        : []),
      Plot.areaY(points, { x: 'at', y: 'usd', curve: 'step-after', fill: ACTUAL, fillOpacity: 0.12 }),
      Plot.lineY(points, { x: 'at', y: 'usd', curve: 'step-after', stroke: ACTUAL, strokeWidth: 2 }),
      Plot.ruleY(lines, { y: 'y', stroke: 'color', strokeDasharray: '5,4' }),
      Plot.text(lines, {
        y: 'y',
        text: 'text',
        frameAnchor: 'left',
        dy: -7,
        dx: 4,
        fill: 'color',
        textAnchor: 'start',
      }),
      Plot.ruleY([0]),
    ],
  });
}

/** Rows by state, one bar per state that has rows. */
export function statesChart(byState: Partial<Record<ItemState, number>>): string {
  const data = Object.entries(byState)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([state, n]) => ({ state, n: n! }));
  return render({
    width: HALF_WIDTH,
    height: Math.max(80, 26 * data.length + 40),
    marginLeft: 90,
    marginRight: 60,
    x: { label: 'rows', grid: true },
    y: { label: null, domain: data.map((d) => d.state) },
    marks: [
      Plot.barX(data, { y: 'state', x: 'n', fill: (d: { state: ItemState }) => STATE_COLORS[d.state] }),
      Plot.text(data, {
        y: 'state',
        x: 'n',
        text: (d: { n: number }) => d.n.toLocaleString('en-US'),
        dx: 4,
        textAnchor: 'start',
        fill: INK,
      }),
      Plot.ruleX([0]),
    ],
  });
}

/** Rows finished per interval, with the 429 pauses shaded and the 5xx bursts ruled. */
export function throughputChart(timeline: Timeline): string {
  const bars = timeline.buckets.map((b) => ({
    x1: new Date(b.start),
    x2: new Date(b.start + timeline.bucketMs),
    done: b.done,
    sent: b.submitted,
  }));
  const pauses = timeline.pauses.map((p) => ({
    x1: new Date(p.start),
    x2: new Date(Math.max(p.end, p.start + timeline.bucketMs / 20)),
    label: `429 x${p.count}`,
  }));
  const bursts = timeline.bursts.map((b) => ({ at: new Date(b.start), label: `5xx x${b.count}` }));
  const seconds = timeline.bucketMs / 1000;
  const per = seconds < 60 ? `${seconds} s` : `${seconds / 60} min`;
  return render({
    height: 220,
    marginLeft: 50,
    marginRight: 20,
    x: timeAxis(timeline),
    y: { label: `rows finished per ${per}`, grid: true },
    marks: [
      Plot.rectY(pauses, {
        x1: 'x1',
        x2: 'x2',
        y1: 0,
        y2: Math.max(1, ...bars.map((b) => Math.max(b.done, b.sent))),
        fill: PAUSE,
        fillOpacity: 0.3,
      }),
      Plot.rectY(bars, { x1: 'x1', x2: 'x2', y: 'done', fill: ACTUAL, inset: 0.5 }),
      Plot.lineY(bars, {
        x: (d: { x1: Date; x2: Date }) => new Date((d.x1.getTime() + d.x2.getTime()) / 2),
        y: 'sent',
        stroke: SENT,
        strokeWidth: 1.5,
        curve: 'step',
      }),
      Plot.ruleX(bursts, { x: 'at', stroke: OVER, strokeWidth: 1.5 }),
      Plot.ruleY([0]),
    ],
  });
}

/** How long video tasks took, submission to success (seconds), with the median ruled. */
export function videoDurationChart(durationsMs: readonly number[], medianMs: number | undefined): string {
  const seconds = durationsMs.map((ms) => ({ s: ms / 1000 }));
  return render({
    width: HALF_WIDTH,
    height: 200,
    marginLeft: 50,
    marginRight: 20,
    x: { label: 'seconds from submission to success' },
    y: { label: 'tasks', grid: true },
    marks: [
      Plot.rectY(seconds, { ...Plot.binX({ y: 'count' }, { x: 's' }), fill: ACTUAL, inset: 0.5 }),
      ...(medianMs === undefined
        ? []
        : [
            Plot.ruleX([medianMs / 1000], { stroke: OVER, strokeDasharray: '4,3' }),
            Plot.text([medianMs / 1000], {
              x: (d: number) => d,
              text: () => `median ${(medianMs / 1000).toFixed(1)} s`,
              frameAnchor: 'top',
              dy: 4,
              dx: 4,
              textAnchor: 'start',
              fill: OVER,
              stroke: 'white',
              strokeWidth: 3,
              paintOrder: 'stroke',
            }),
          ]),
      Plot.ruleY([0]),
    ],
  });
}
