// Pure: the row browser (a page of rows under filters, with the next page's link) and one row with its
// history of events.
import { isObjectLocation } from '../../core/object-location.js';
import { ITEM_STATES, type ItemState } from '../../core/states.js';
import type { Item, ItemEventRecord, RowFacets } from '../../journal/index.js';
import { reportItem } from '../../report/model.js';
import { STATE_COLORS } from '../../report/html/charts.js';
import { esc, escBlock } from '../../report/html/escape.js';
import { usd } from '../../report/table.js';
import type { JobSummary } from '../job-view.js';
import { retryWaits } from '../retry-waits.js';
import { filterParams, type RowFilter } from '../row-query.js';
import type { Viewer } from '../viewer.js';
import { count, isoTime } from './layout.js';

const badge = (state: ItemState): string =>
  `<span class="state" style="--c:${STATE_COLORS[state] ?? '#64748b'}">${esc(state)}</span>`;

export function rowsBody(
  job: JobSummary,
  facets: RowFacets,
  filter: RowFilter,
  rows: readonly Item[],
  more: boolean,
): string {
  const base = `/jobs/${encodeURIComponent(job.key)}/rows`;
  const option = (value: string, label: string, chosen: string) =>
    `<option value="${esc(value)}"${value === chosen ? ' selected' : ''}>${esc(label)}</option>`;
  const states = [option('', 'any state', filter.state), ...ITEM_STATES.map((s) => option(s, s, filter.state))];
  const kinds = [
    option('', 'any kind', filter.kind),
    ...['chat', 'responses', 'video'].map((k) => option(k, k, filter.kind)),
  ];
  const models = [
    option('', 'any model', filter.model),
    ...facets.models.map((m) => option(m.model, `${m.model} (${count(m.rows)})`, filter.model)),
  ];
  const codes = [
    option('', 'any error code', filter.errorCode),
    ...facets.errorCodes.map((c) => option(c.code, `${c.code} (${count(c.rows)})`, filter.errorCode)),
  ];
  const body = rows.map((item) => {
    const r = reportItem(item);
    return `<tr data-id="${esc(item.id)}"><td><a href="${base}/${encodeURIComponent(item.id)}">${esc(item.id)}</a></td><td>${esc(item.kind)}</td><td class="nw">${esc(item.model)}</td><td>${badge(item.state)}</td>
<td class="n">${usd(r.estimated_usd)}</td><td class="n">${usd(r.actual_usd)}</td><td class="n">${count(item.attempts)}</td><td>${esc(item.lastError?.code ?? '')}</td><td class="err">${esc(item.lastError?.message ?? '')}</td></tr>`;
  });
  const last = rows[rows.length - 1];
  const next =
    more && last
      ? `<p><a rel="next" href="${base}?${esc(filterParams(filter, last.seq).toString())}">next ${count(rows.length)} rows</a></p>`
      : '';
  const first =
    filter.afterSeq > 0 ? `<a href="${base}?${esc(filterParams(filter).toString())}">first page</a> · ` : '';
  return `<p class="crumbs"><a href="/">jobs</a> / <a href="/jobs/${encodeURIComponent(job.key)}">${esc(job.name)}</a> / rows</p>
<h1>Rows of ${esc(job.name)}</h1>
<form method="get" action="${base}" class="filters">
<select name="state" aria-label="state">${states.join('')}</select>
<select name="kind" aria-label="kind">${kinds.join('')}</select>
<select name="model" aria-label="model">${models.join('')}</select>
<select name="code" aria-label="error code">${codes.join('')}</select>
<input type="search" name="id" value="${esc(filter.id)}" placeholder="id starts with" aria-label="id starts with">
<button type="submit">filter</button></form>
<p class="muted">${first}${count(rows.length)} row(s) on this page, in manifest order.</p>
<table class="rows"><thead><tr><th>id</th><th>kind</th><th>model</th><th>state</th><th class="n">estimate</th><th class="n">actual</th><th class="n">attempts</th><th>error code</th><th>error</th></tr></thead>
<tbody>${body.join('\n') || '<tr><td colspan="9">No row matches.</td></tr>'}</tbody></table>${next}`;
}

export function rowBody(job: JobSummary, item: Item, events: readonly ItemEventRecord[], viewer: Viewer): string {
  const r = reportItem(item);
  const base = `/jobs/${encodeURIComponent(job.key)}`;
  const facts: Array<[string, string]> = [
    ['state', badge(item.state)],
    ['kind', esc(item.kind)],
    ['model', esc(item.model)],
    ['source', esc(r.source)],
    ['attempts', count(item.attempts)],
    ['task id', esc(item.taskId ?? '-')],
    ['estimate', usd(r.estimated_usd)],
    ['reserved', usd(item.reservedUsd)],
    ...(item.carriedUsd > 0
      ? [['carried from earlier attempts (may have been billed)', usd(item.carriedUsd)] as [string, string]]
      : []),
    ['actual', usd(r.actual_usd)],
    ['gateway charge', usd(r.gateway_charge_usd)],
    ['output', outputCell(`${base}/rows/${encodeURIComponent(item.id)}/output`, item.outputPath)],
    [
      'error',
      esc(item.lastError ? `${item.lastError.code ?? item.lastError.type ?? ''} ${item.lastError.message}` : '-'),
    ],
  ];
  const history = events.map(
    (e) =>
      `<tr><td class="nw">${esc(isoTime(e.at))}</td><td>${esc(e.event)}</td><td>${esc(e.from ?? '')} → ${esc(e.to)}</td><td><pre class="detail">${escBlock(JSON.stringify(e.detail ?? null, null, 1).slice(0, 4000))}</pre></td></tr>`,
  );
  const confirm = `${base}/confirm`;
  const id = encodeURIComponent(item.id);
  const actions = !viewer.canAct
    ? ''
    : job.frozen
      ? `<p class="muted">No actions: ${esc(job.frozen)}.</p>`
      : item.state === 'uncertain'
        ? `<p><a class="action" href="${confirm}/resubmit-row?id=${id}">resubmit this row</a> <a class="action" href="${confirm}/abandon-row?id=${id}">abandon this row</a></p>`
        : item.state === 'failed' || item.state === 'rejected'
          ? retryRow(`${confirm}/retry-row?id=${id}`, retryWaits(job.liveRunners))
          : '';
  return `<p class="crumbs"><a href="/">jobs</a> / <a href="${base}">${esc(job.name)}</a> / <a href="${base}/rows">rows</a> / ${esc(item.id)}</p>
<h1>Row ${esc(item.id)}</h1>
<table class="facts"><tbody>${facts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join('')}</tbody></table>
${actions}
<h2>History</h2>
<table class="events"><thead><tr><th>at</th><th>event</th><th>move</th><th>detail</th></tr></thead><tbody>${history.join('\n')}</tbody></table>`;
}

function retryRow(href: string, waits: string | undefined): string {
  return waits
    ? `<p class="muted" data-field="retry-waits">No retry now: ${esc(waits)}.</p>`
    : `<p><a class="action" href="${href}">retry this row</a></p>`;
}

/** A path is shown as text (it is on the runner's disk); an s3:// output links to the dashboard's stream of it. */
function outputCell(href: string, output: string | null): string {
  if (output === null) return '-';
  if (!isObjectLocation(output)) return esc(output);
  return `<code class="output">${esc(output)}</code> <a class="output-link" href="${esc(href)}">open</a>`;
}
