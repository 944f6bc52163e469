// Pure: one job's page. The headline and estimate sections are the HTML report's own (same figures,
// each with its place in `report --format json`), then the runners with their leases, the problems by
// cause with their commands, the actions this server allows, and the way into the rows. The parts that
// move while a run goes on are fragments the live stream sends again (liveFragments).
import { esc } from '../../report/html/escape.js';
import { TimelineBuilder } from '../../report/timeline.js';
import { statesChart } from '../../report/html/charts.js';
import { estimateSection, headline, problemsSection, type HtmlReportInput } from '../../report/html/sections.js';
import type { JobPage } from '../job-view.js';
import { retryWaits } from '../retry-waits.js';
import type { Viewer } from '../viewer.js';
import { count, isoTime } from './layout.js';
import { ITEM_STATES } from '../../core/states.js';
import { forecastPart } from './forecast-part.js';

function reportInput(job: JobPage): HtmlReportInput {
  return {
    header: job.header,
    timeline: new TimelineBuilder().finish(),
    journalArg: job.journalArg,
    address: job.address,
    standing: job.told,
    lastRun: job.lastRun,
    marks: new Map(),
    problems: job.problems,
    rows: [],
    // As of the job's last change (none: no date), so that the page of a job at rest stays as it is.
    generatedAt: job.activity.lastAt ?? 0,
  };
}

/** The fragments the live stream replaces, by element id: everything on the page that a run moves. */
export function liveFragments(job: JobPage): Record<string, string> {
  const input = reportInput(job);
  const problemNote =
    job.problems.total > job.problems.read
      ? `<p class="muted">Grouped from the first ${count(job.problems.read)} of ${count(job.problems.total)} rows that need a look; the row browser filters them all.</p>`
      : '';
  const retryNote =
    job.liveRunners > 0 && job.problems.groups.some((g) => g.state === 'failed' || g.state === 'rejected')
      ? '<p class="muted" data-field="retry-waits">While a run is live on this job, the <code>gbatch retry</code> commands above are refused (exit 73): run them once it ends.</p>'
      : '';
  return {
    'live-standing': standingLine(job),
    'live-headline': headline(input),
    'live-runners': runnersTable(job),
    'live-estimate': estimateSection(input),
    'live-forecast': forecastPart(job.forecast, input),
    'live-states': `<section id="states"><h2>Rows by state</h2><figure>${statesChart(job.header.totals.by_state)}</figure>${rowLinks(job)}</section>`,
    'live-problems': `${problemsSection(input)}${problemNote}${retryNote}`,
  };
}

export function jobBody(job: JobPage, viewer: Viewer): string {
  const live = liveFragments(job);
  const part = (id: string): string => `<div id="${id}">${live[id]}</div>`;
  return `<p class="crumbs"><a href="/">jobs</a> / ${esc(job.name)}</p>
${part('live-standing')}
${part('live-headline')}
${actionsSection(job, viewer)}
<section id="runners"><h2>Runners</h2>${part('live-runners')}</section>
${part('live-estimate')}
${part('live-forecast')}
${part('live-states')}
${part('live-problems')}`;
}

function standingLine(job: JobPage): string {
  const cancel = job.cancel
    ? ` · cancelled ${esc(isoTime(job.cancel.at))}${job.cancel.reason ? ` (${esc(job.cancel.reason)})` : ''}`
    : '';
  return `<p><span class="standing ${esc(job.standing.kind)}" data-field="standing" data-kind="${esc(job.standing.kind)}">${esc(job.standing.label)}</span>${cancel} · last activity <span data-field="last_activity">${esc(isoTime(job.activity.lastAt))}</span> · journal <code>${esc(job.journalArg)}</code></p>`;
}

function runnersTable(job: JobPage): string {
  if (job.runners.length === 0) return '<p class="muted">No runner holds this job now.</p>';
  const rows = job.runners.map(
    (r) => `<tr data-runner="${esc(r.runnerId)}"><td>${esc(r.host)}</td><td class="n">${esc(r.pid)}</td>
<td>${r.liveness.alive ? '<span class="standing running">live</span>' : '<span class="standing stopped">gone</span>'}</td>
<td class="nw">${esc(isoTime(r.startedAt))}</td><td class="nw">${esc(isoTime(r.heartbeatAt))}</td>
<td>${esc(r.liveness.basis)}</td><td class="n">${count(r.rows)}</td><td class="nw">${r.cancelSeenAt ? esc(isoTime(r.cancelSeenAt)) : '-'}</td></tr>`,
  );
  return `<table><thead><tr><th>host</th><th class="n">pid</th><th>lease</th><th>joined</th><th>last heartbeat</th><th>judged by</th><th class="n">rows held</th><th>saw cancel</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function rowLinks(job: JobPage): string {
  const base = `/jobs/${encodeURIComponent(job.key)}/rows`;
  const links = ITEM_STATES.filter((state) => (job.header.totals.by_state[state] ?? 0) > 0).map(
    (state) => `<a href="${base}?state=${state}">${esc(state)} (${count(job.header.totals.by_state[state]!)})</a>`,
  );
  return `<p><a href="${base}">Browse all ${count(job.header.totals.items)} rows</a>${links.length ? ` · ${links.join(' · ')}` : ''}</p>`;
}

/** What this server lets the viewer do to the job, each through a confirmation page. */
function actionsSection(job: JobPage, viewer: Viewer): string {
  if (!viewer.canAct)
    return '<section id="actions" class="muted"><p>Read-only: this dashboard was started without <code>--allow-actions</code>.</p></section>';
  if (job.frozen) return `<section id="actions" class="muted"><p>No actions: ${esc(job.frozen)}.</p></section>`;
  const s = job.header.totals.by_state;
  const base = `/jobs/${encodeURIComponent(job.key)}/confirm`;
  const waitsFor = retryWaits(job.liveRunners);
  // The standing's needs choose the actions, as they choose every surface's commands.
  const needed = new Set(job.told.needs.filter((n) => n.commands.length > 0).map((n) => n.what));
  const retries = [
    s.failed && needed.has('failed')
      ? `<a class="action" href="${base}/retry-failed">retry ${count(s.failed)} failed</a>`
      : undefined,
    s.rejected && needed.has('rejected')
      ? `<a class="action" href="${base}/retry-rejected">retry ${count(s.rejected)} rejected</a>`
      : undefined,
    s.cancelled
      ? `<a class="action" href="${base}/retry-cancelled">send ${count(s.cancelled)} cancelled again</a>`
      : undefined,
  ].filter((a) => a !== undefined);
  const actions = [
    job.cancel || job.finished === job.header.totals.items
      ? undefined
      : `<a class="action" href="${base}/cancel">cancel the job</a>`,
    ...(waitsFor ? [] : retries),
    s.uncertain && needed.has('uncertain')
      ? `<a class="action" href="${base}/resubmit-uncertain">resubmit ${count(s.uncertain)} uncertain</a> <a class="action" href="${base}/abandon-uncertain">abandon ${count(s.uncertain)} uncertain</a>`
      : undefined,
  ].filter((a) => a !== undefined);
  const waits =
    waitsFor && retries.length > 0
      ? `<p class="muted" data-field="retry-waits">No retry now: ${esc(waitsFor)}.</p>`
      : '';
  return `<section id="actions"><h2>Actions</h2><p>${actions.join(' ') || 'Nothing to act on.'}</p>${waits}</section>`;
}
