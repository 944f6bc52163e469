// Pure: the jobs list, money first: each job's standing, progress, spend and reserved against its budget,
// estimate against actual, and last activity; sorted and filtered by the query (plain links and a GET
// form: it works without script).
import { usd } from '../../report/table.js';
import { esc } from '../../report/html/escape.js';
import type { JobSummary } from '../job-view.js';
import type { StandingKind } from '../job-standing.js';
import { count, isoTime } from './layout.js';

export const SORT_KEYS = ['name', 'standing', 'progress', 'spent', 'budget', 'delta', 'activity'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface JobsQuery {
  sort: SortKey;
  descending: boolean;
  /** Jobs whose name contains this (any case). */
  text: string;
  standing: StandingKind | '';
}

const STANDINGS: ReadonlyArray<[StandingKind, string]> = [
  ['running', 'running'],
  ['needs-operator', 'needs an operator'],
  ['stopped-on-budget', 'stopped on budget'],
  ['finished', 'finished'],
  ['cancelled', 'cancelled'],
  ['stopped', 'stopped'],
  ['not-started', 'not started'],
];

export function parseJobsQuery(params: URLSearchParams): JobsQuery {
  const sort = (SORT_KEYS as readonly string[]).includes(params.get('sort') ?? '')
    ? (params.get('sort') as SortKey)
    : 'activity';
  const standing = STANDINGS.some(([kind]) => kind === params.get('standing'))
    ? (params.get('standing') as StandingKind)
    : '';
  const order = params.get('order');
  return {
    sort,
    descending: order === null ? sort !== 'name' : order === 'desc',
    text: (params.get('q') ?? '').slice(0, 200),
    standing,
  };
}

const progressOf = (job: JobSummary): number =>
  job.header.totals.items === 0 ? 1 : job.finished / job.header.totals.items;

const SORTERS: Record<SortKey, (job: JobSummary) => number | string> = {
  name: (job) => job.name,
  standing: (job) => STANDINGS.findIndex(([kind]) => kind === job.standing.kind),
  progress: progressOf,
  spent: (job) => job.header.totals.actual_usd,
  budget: (job) => job.header.totals.budget_usd ?? Infinity,
  delta: (job) => job.header.totals.delta_usd,
  activity: (job) => job.activity.lastAt ?? 0,
};

export function selectJobs(jobs: readonly JobSummary[], query: JobsQuery): JobSummary[] {
  const text = query.text.toLowerCase();
  const key = SORTERS[query.sort];
  return jobs
    .filter(
      (job) =>
        (text === '' || job.name.toLowerCase().includes(text)) &&
        (query.standing === '' || job.standing.kind === query.standing),
    )
    .sort((a, b) => {
      const x = key(a);
      const y = key(b);
      const order = x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
      return query.descending ? -order : order;
    });
}

export function jobsBody(
  jobs: readonly JobSummary[],
  shown: readonly JobSummary[],
  query: JobsQuery,
  unreadable: readonly string[],
): string {
  const link = (sort: SortKey, label: string, numeric = false): string => {
    const descending = query.sort === sort ? !query.descending : sort !== 'name';
    const params = new URLSearchParams({ sort, order: descending ? 'desc' : 'asc' });
    if (query.text) params.set('q', query.text);
    if (query.standing) params.set('standing', query.standing);
    const mark = query.sort === sort ? (query.descending ? ' ▼' : ' ▲') : '';
    return `<th${numeric ? ' class="n"' : ''}><a href="/?${esc(params.toString())}">${esc(label)}${mark}</a></th>`;
  };
  const rows = shown.map((job) => {
    const t = job.header.totals;
    const share = Math.round(progressOf(job) * 100);
    const budget = t.budget_usd === null ? 'none' : usd(t.budget_usd, 2);
    const spentShare = t.budget_usd ? ` (${Math.round(((t.actual_usd + t.reserved_usd) / t.budget_usd) * 100)}%)` : '';
    return `<tr data-job="${esc(job.key)}">
<td><a href="/jobs/${encodeURIComponent(job.key)}">${esc(job.name)}</a></td>
<td><span class="standing ${esc(job.standing.kind)}" data-field="standing" data-kind="${esc(job.standing.kind)}">${esc(job.standing.label)}</span></td>
<td class="n"><span data-field="finished">${count(job.finished)}</span> / <span data-field="items">${count(t.items)}</span> <meter min="0" max="100" value="${share}">${share}%</meter></td>
<td class="n"><span data-field="actual_usd" data-value="${t.actual_usd}">${usd(t.actual_usd, 2)}</span> + <span data-field="reserved_usd" data-value="${t.reserved_usd}">${usd(t.reserved_usd, 2)}</span> reserved</td>
<td class="n"><span data-field="budget_usd" data-value="${t.budget_usd ?? 'null'}">${budget}</span>${esc(spentShare)}</td>
<td class="n"><span data-field="estimated_usd" data-value="${t.estimated_usd}">${usd(t.estimated_usd, 2)}</span> / <span data-field="delta_usd" data-value="${t.delta_usd}">${t.delta_usd > 0 ? '+' : ''}${usd(t.delta_usd, 4)}</span></td>
<td class="nw" data-field="last_activity">${esc(isoTime(job.activity.lastAt))}</td>
</tr>`;
  });
  const options = [['', 'any standing'] as const, ...STANDINGS]
    .map(
      ([kind, label]) => `<option value="${kind}"${kind === query.standing ? ' selected' : ''}>${esc(label)}</option>`,
    )
    .join('');
  const broken = unreadable.length
    ? `<p class="flash bad">Could not read: ${unreadable.map((why) => esc(why)).join('; ')}</p>`
    : '';
  return `<header class="top"><h1>Jobs</h1><span class="muted">${count(shown.length)} of ${count(jobs.length)}</span></header>
${broken}
<form method="get" action="/" class="filters">
<input type="search" name="q" value="${esc(query.text)}" placeholder="job name contains" aria-label="job name contains">
<select name="standing" aria-label="standing">${options}</select>
<input type="hidden" name="sort" value="${esc(query.sort)}"><input type="hidden" name="order" value="${query.descending ? 'desc' : 'asc'}">
<button type="submit">filter</button></form>
<table class="jobs"><thead><tr>${link('name', 'job')}${link('standing', 'standing')}${link('progress', 'rows done', true)}${link('spent', 'spent (settled) + reserved', true)}${link('budget', 'budget', true)}${link('delta', 'estimate / actual - estimate', true)}${link('activity', 'last activity')}</tr></thead>
<tbody>${rows.join('\n') || '<tr><td colspan="7">No job matches.</td></tr>'}</tbody></table>`;
}
