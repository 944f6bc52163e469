// Pure: the report's sections as HTML, from the report model, the timeline and the grouped problems.
// Every number shown carries its JSON path and exact value (data-path, data-value): the page states the
// same figures as `report --format json`, and a test can check it. Every outside text goes through esc().
import { jobCommand, type JobAddress } from '../../core/job-address.js';
import type { Standing } from '../../core/standing.js';
import type { ItemState } from '../../core/states.js';
import type { ReportHeader, ReportItem } from '../model.js';
import { duration } from '../duration.js';
import { usd } from '../table.js';
import { quantile, type Timeline } from '../timeline.js';
import {
  estimateVsActualChart,
  spendChart,
  STATE_COLORS,
  statesChart,
  THROUGHPUT_KEY,
  throughputChart,
  videoDurationChart,
} from './charts.js';
import { esc, escBlock } from './escape.js';
import { ACTUAL_VS_FORECAST_WORDS, forecastBasisWords } from '../start-forecast.js';
import type { ProblemExample, ProblemGroup } from './problems.js';

export interface LastRunSummary {
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  stopReason: string | null;
  message: string | null;
  /** What the exit code means (the run command's own list). */
  meaning: string | null;
}

export interface GroupMarks {
  unmetered: number;
  over: number;
  mispriced?: number;
}

export interface HtmlReportInput {
  header: ReportHeader;
  timeline: Timeline;
  /** How commands name the journal (job name, --state F, or --journal URL). */
  journalArg: string;
  /** How the job is addressed: every command the page suggests is built from it (core/job-address.ts). */
  address: JobAddress;
  /** What happened and what needs a person (core/standing.ts): the headline's sentence. */
  standing: Standing | null;
  lastRun: LastRunSummary | null;
  /** Unmetered, overshooting and mispriced rows per model and resolution (groupKey). */
  marks: ReadonlyMap<string, GroupMarks>;
  /** Rows the gateway charged more than the pricing table says, in all. */
  mispriced?: number;
  problems: { groups: ProblemGroup[]; ungrouped: number };
  /** The first rows, in manifest order; the rest are in the CSV. */
  rows: readonly ReportItem[];
  /** Presigned HTTPS links of the shown rows' s3:// outputs (`--presign-links`), by URI. */
  links?: ReadonlyMap<string, string>;
  generatedAt: number;
}

export { duration };

export const groupKey = (model: string | null, resolution: string | null): string =>
  `${model ?? ''}\u0000${resolution ?? ''}`;

/** A figure with its place in `report --format json` (path) and its exact value there. */
export function figure(
  path: ReadonlyArray<string | number>,
  value: unknown,
  text: string,
  tag = 'span',
  cls = '',
): string {
  return `<${tag}${cls ? ` class="${cls}"` : ''} data-path="${esc(JSON.stringify(path))}" data-value="${esc(JSON.stringify(value ?? null))}">${esc(text)}</${tag}>`;
}

/** Dollars to `digits` places, or to 6 when a figure that is not zero would read as zero. */
function money(value: number | null, digits: number): string {
  if (value === null) return usd(value);
  return usd(value, value !== 0 && Math.abs(value) < 0.5 * 10 ** -digits ? 6 : digits);
}

const time = (iso: string | null): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');
const count = (n: number): string => n.toLocaleString('en-US');
const stateBadge = (state: ItemState): string =>
  `<span class="state" style="--c:${STATE_COLORS[state] ?? '#64748b'}">${esc(state)}</span>`;

export function headline(input: HtmlReportInput): string {
  const { totals } = input.header;
  const done = totals.by_state.downloaded ?? 0;
  const budget = totals.budget_usd;
  const spentShare = budget ? ` (${Math.round((totals.actual_usd / budget) * 100)}% of the budget)` : '';
  const cards = [
    card(
      'rows done',
      `${figure(['totals', 'by_state', 'downloaded'], totals.by_state.downloaded, count(done))} / ${figure(['totals', 'items'], totals.items, count(totals.items))}`,
      Object.entries(totals.by_state)
        .filter(([s]) => s !== 'downloaded')
        .map(([s, n]) => `${esc(s)} ${figure(['totals', 'by_state', s], n, count(n!))}`)
        .join(', ') || 'nothing else',
    ),
    card(
      'spent (settled)',
      figure(['totals', 'actual_usd'], totals.actual_usd, money(totals.actual_usd, 2)),
      `of ${figure(['totals', 'settled_items'], totals.settled_items, count(totals.settled_items))} settled rows${esc(spentShare)}; reserved ${figure(['totals', 'reserved_usd'], totals.reserved_usd, money(totals.reserved_usd, 2))}`,
    ),
    card(
      'budget',
      budget === null
        ? figure(['totals', 'budget_usd'], null, 'none')
        : figure(['totals', 'budget_usd'], budget, money(budget, 2)),
      `estimate for all rows ${figure(['totals', 'estimated_usd'], totals.estimated_usd, money(totals.estimated_usd, 2))}`,
    ),
    card(
      'actual vs estimate',
      figure(
        ['totals', 'delta_usd'],
        totals.delta_usd,
        `${totals.delta_usd > 0 ? '+' : ''}${money(totals.delta_usd, 4)}`,
      ),
      `over the settled rows (estimate ${figure(['totals', 'settled_estimated_usd'], totals.settled_estimated_usd, money(totals.settled_estimated_usd, 2))}); overshoot ${figure(['totals', 'overshoot_usd'], totals.overshoot_usd, money(totals.overshoot_usd, 4))}`,
    ),
    card(
      'duration',
      figure(['totals', 'duration_ms'], totals.duration_ms, duration(totals.duration_ms)),
      `${esc(time(totals.started_at))} to ${esc(time(totals.ended_at))}`,
    ),
  ];
  return `<header class="top"><h1>gbatch report: <span class="job">${esc(input.header.job)}</span></h1>
${input.generatedAt > 0 ? `<span class="muted">written ${esc(time(new Date(input.generatedAt).toISOString()))}</span>` : ''}</header>
<section id="headline" aria-label="Headline"><div class="cards">${cards.join('')}</div>
${verdict(input)}</section>`;
}

function card(key: string, value: string, sub: string): string {
  return `<div class="card"><div class="k">${esc(key)}</div><div class="v">${value}</div><div class="s">${sub}</div></div>`;
}

const command = (text: string) => `<code class="cmd">${esc(text)}</code>`;

function verdict(input: HtmlReportInput): string {
  const { by_state: s, unmetered_items: unmetered } = input.header.totals;
  const open = (s.pending ?? 0) + (s.submitting ?? 0) + (s.submitted ?? 0) + (s.running ?? 0) + (s.succeeded ?? 0);
  const waiting = input.problems.groups.filter((g) => g.state !== 'invalid');
  const run = input.lastRun;
  const exit = input.standing
    ? `<p><strong data-field="standing" data-kind="${esc(input.standing.kind)}">${esc(input.standing.sentence)}</strong></p>`
    : run === null
      ? '<p>No run recorded in this journal.</p>'
      : run.endedAt === null
        ? `<p>The last run (started ${esc(time(new Date(run.startedAt).toISOString()))}) has not recorded its end: it is running, or was killed.</p>`
        : `<p>Last run: exit <strong>${esc(run.exitCode)}</strong>${run.meaning ? `: ${esc(run.meaning)}` : ''}${run.stopReason ? ` (${esc(run.stopReason)})` : ''}.</p>`;
  // What to do next is the standing's: its resume, then each need with its commands (or, with none, its words).
  const standing = input.standing;
  const next = [
    ...(standing?.resume ? [command(standing.resume)] : []),
    ...(standing?.needs ?? []).map((need) => `<p>${esc(need.line)}</p>${need.commands.map(command).join('')}`),
  ];
  const level = s.uncertain ? 'bad' : waiting.length > 0 || open > 0 ? 'attention' : '';
  const what =
    level === ''
      ? '<p><strong>Nothing to do:</strong> every row is finished.</p>'
      : `<p><strong>What to do next</strong> (details under <a href="#problems">Problems</a>):</p>${next.join('')}`;
  const unmeteredLine =
    unmetered > 0
      ? `<p>${figure(['totals', 'unmetered_items'], unmetered, count(unmetered))} row(s) came back without a usable count from the gateway: each is booked at the most it could be billed.</p>`
      : '';
  const mispriced = input.mispriced ?? 0;
  const mispricedLine =
    mispriced > 0
      ? `<p>${count(mispriced)} row(s) were charged more by the gateway than the pricing table says (marked <span class="mark over">priced wrong</span>): each is booked at the gateway's charge; correct the pricing file (its group_ratio or the model's rates). Per model: <code>price_drift</code> in <code>--format json</code>.</p>`
      : '';
  return `<div class="verdict ${level}">${exit}${what}${unmeteredLine}${mispricedLine}</div>`;
}

export function estimateSection(input: HtmlReportInput): string {
  const rows = input.header.by_model.map((g, i) => {
    const marks = input.marks.get(groupKey(g.model, g.resolution)) ?? { unmetered: 0, over: 0 };
    const p = (field: string) => ['by_model', i, field];
    return (
      `<tr><td class="nw">${esc(g.model)}</td><td>${esc(g.resolution ?? '-')}</td>` +
      `${figure(p('items'), g.items, count(g.items), 'td', 'n')}${figure(p('settled_items'), g.settled_items, count(g.settled_items), 'td', 'n')}` +
      `${figure(p('estimated_usd'), g.estimated_usd, money(g.estimated_usd, 4), 'td', 'n')}${figure(p('actual_usd'), g.actual_usd, money(g.actual_usd, 4), 'td', 'n')}` +
      `${figure(p('delta_usd'), g.delta_usd, money(g.delta_usd, 4), 'td', 'n')}${figure(p('total_tokens'), g.total_tokens, count(g.total_tokens), 'td', 'n')}` +
      `<td>${marks.over ? `<span class="mark over">${count(marks.over)} over estimate</span>` : ''}${marks.unmetered ? `<span class="mark unmetered">${count(marks.unmetered)} unmetered</span>` : ''}` +
      `${marks.mispriced ? `<span class="mark over">${count(marks.mispriced)} priced wrong</span>` : ''}</td></tr>`
    );
  });
  return `<section id="estimate"><h2>Estimate vs actual, per model and resolution</h2>
<figure>${estimateVsActualChart(input.header.by_model)}<figcaption>Actual charge against the estimate of the same (settled) rows; red where a group cost more than estimated.</figcaption></figure>
<table><thead><tr><th>model</th><th>resolution</th><th class="n">rows</th><th class="n">settled</th><th class="n">estimate (all)</th><th class="n">actual</th><th class="n">delta (settled)</th><th class="n">tokens</th><th>marks</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`;
}

/** The forecast the job started with against each model's bill; nothing when the job keeps none. */
export function forecastSection(input: HtmlReportInput): string {
  const forecast = input.header.forecast;
  if (!forecast) return '';
  const rows = Object.entries(forecast.by_model).map(([model, f]) => {
    const p = (field: string) => ['forecast', 'by_model', model, field];
    return (
      `<tr><td class="nw">${esc(model)}</td>${figure(p('p50_usd'), f.p50_usd, money(f.p50_usd, 4), 'td', 'n')}` +
      `${figure(p('p90_usd'), f.p90_usd, money(f.p90_usd, 4), 'td', 'n')}${figure(p('actual_usd'), f.actual_usd, money(f.actual_usd, 4), 'td', 'n')}` +
      `<td>${esc(ACTUAL_VS_FORECAST_WORDS[f.actual_vs_forecast])}</td><td>${esc(forecastBasisWords(f))}</td></tr>`
    );
  });
  return `<section id="forecast"><h2>Forecast at the start against the bill, per model</h2>
<p>Made ${esc(time(forecast.made_at))} from the cost history, before the first row was sent; the budget reserved each row's bound regardless.</p>
<table><thead><tr><th>model</th><th class="n">P50</th><th class="n">P90</th><th class="n">actual</th><th>actual vs forecast</th><th>basis</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`;
}

export function timeSections(input: HtmlReportInput): string {
  const {
    timeline: t,
    header: { totals },
  } = input;
  const median = quantile(t.videoDurationsMs, 0.5);
  const p90 = quantile(t.videoDurationsMs, 0.9);
  const states = `<section id="states"><h2>Rows by state</h2><figure>${statesChart(totals.by_state)}</figure></section>`;
  const key = THROUGHPUT_KEY.map(([name, color]) => `<span style="--c:${color}">${esc(name)}</span>`).join('');
  const video =
    t.videoDurationsMs.length === 0
      ? '<p class="muted">No video task has succeeded.</p>'
      : `<figure>${videoDurationChart(t.videoDurationsMs, median)}<figcaption>${count(t.videoDurationsMs.length)} task(s); median ${esc(duration(median))}, 90th percentile ${esc(duration(p90))}.</figcaption></figure>`;
  return `<section id="spend"><h2>Spend over time</h2>
<figure>${spendChart(t, totals.budget_usd, totals.estimated_usd)}<figcaption>Settled charges, cumulative, as each row settled (from the journal's event log).</figcaption></figure></section>
${
  hasVideo(input)
    ? `<div class="grid2">${states}
<section id="durations"><h2>Video task durations</h2>${video}</section></div>`
    : states
}
<section id="throughput"><h2>Throughput</h2>
<figure><div class="key">${key}</div>${throughputChart(t)}<figcaption>${count(t.pauses.reduce((n, p) => n + p.count, 0))} rate-limit answer(s) (429) in ${count(t.pauses.length)} pause(s); ${count(t.bursts.reduce((n, b) => n + b.count, 0))} gateway error(s) (5xx or connection) in ${count(t.bursts.length)} burst(s).</figcaption></figure></section>`;
}

/**
 * Whether the job has video rows (a video group has a resolution; a text one none): a text-only job has no video panel.
 */
function hasVideo(input: HtmlReportInput): boolean {
  return input.timeline.videoDurationsMs.length > 0 || input.header.by_model.some((g) => g.resolution !== null);
}

export function problemsSection(input: HtmlReportInput): string {
  const { groups, ungrouped } = input.problems;
  if (groups.length === 0)
    return '<section id="problems"><h2>Problems</h2><p>None: no row failed, was rejected, is uncertain, deferred or invalid.</p></section>';
  const blocks = groups.map(
    (
      g,
    ) => `<div class="problem"><h3>${stateBadge(g.state)} <span data-problem-count="${esc(g.state)}">${count(g.count)}</span> row(s): <span class="cause">${esc(g.cause)}</span></h3>
<ul class="examples">${g.examples.map(example).join('')}${g.count > g.examples.length ? `<li class="muted">and ${count(g.count - g.examples.length)} more</li>` : ''}</ul>
<p class="muted">${esc(g.note)}</p>
${g.commands.map((c) => `<code class="cmd">${esc(c)}</code>`).join('')}</div>`,
  );
  const more =
    ungrouped > 0
      ? `<p>${count(ungrouped)} more row(s) with other causes: <code>${esc(jobCommand(input.address, 'report', '--format', 'csv'))}</code>.</p>`
      : '';
  return `<section id="problems"><h2>Problems, by cause</h2>${blocks.join('\n')}${more}</section>`;
}

/** One row of a problem group, in its own words: its error and, for an invalid row, its text as written. */
function example(e: ProblemExample): string {
  const text = e.rowText === undefined ? '' : `<pre class="row-text">${escBlock(e.rowText)}</pre>`;
  return `<li><code>${esc(e.id)}</code> <span class="err">${esc(e.message)}</span>${text}</li>`;
}

/** A row's output: its path or s3:// URI, and a presigned link to the object when there is one. */
function outputCell(output: string | null, links: ReadonlyMap<string, string> | undefined): string {
  if (output === null) return '';
  const link = links?.get(output);
  return `<code class="output">${esc(output)}</code>${link === undefined ? '' : ` <a class="presigned" href="${esc(link)}" rel="noreferrer">download</a>`}`;
}

export function rowsSection(input: HtmlReportInput): string {
  const total = input.header.totals.items;
  const rows = input.rows.map((r) => {
    const p = (field: string) => ['items', r.id, field];
    const res =
      r.final_resolution && r.final_resolution !== r.resolution
        ? `${r.resolution ?? '-'} -> ${r.final_resolution}`
        : (r.resolution ?? '');
    const marks =
      (r.overshoot_usd > 0 ? '<span class="mark over">over</span>' : '') +
      (r.unmetered ? '<span class="mark unmetered">unmetered</span>' : '') +
      (r.mispriced
        ? `<span class="mark over" data-path="${esc(JSON.stringify(p('mispriced')))}" data-value="true">priced wrong</span>`
        : '');
    return (
      `<tr data-id="${esc(r.id)}"><td>${esc(r.id)}</td><td>${esc(r.kind)}</td><td class="nw">${esc(r.model ?? '-')}</td><td>${stateBadge(r.state)}</td><td class="nw">${esc(res)}</td>` +
      `${figure(p('estimated_usd'), r.estimated_usd, usd(r.estimated_usd), 'td', 'n')}<td class="n">${figure(p('actual_usd'), r.actual_usd, usd(r.actual_usd))}${marks}</td>` +
      `<td class="n">${esc(time(r.submitted_at))}</td>${figure(p('duration_ms'), r.duration_ms, duration(r.duration_ms), 'td', 'n')}` +
      `<td>${outputCell(r.output, input.links)}</td><td class="err">${esc(r.error?.message ?? '')}</td></tr>`
    );
  });
  const rest =
    total > input.rows.length
      ? `<p><strong>${count(total - input.rows.length)} more row(s)</strong> are not shown here: <code>${esc(jobCommand(input.address, 'report', '--format', 'csv', '--output', 'report.csv'))}</code> has every row.</p>`
      : '';
  return `<section id="rows"><h2>Rows (${count(input.rows.length)} of ${count(total)})</h2>
<table><thead><tr><th>id</th><th>kind</th><th>model</th><th>state</th><th>resolution</th><th class="n">estimate</th><th class="n">actual</th><th class="n">submitted</th><th class="n">duration</th><th>output</th><th>error</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>${rest}</section>`;
}
