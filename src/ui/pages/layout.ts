// The dashboard's page around each view: the report's look (its stylesheet, served from /assets), a bar
// with the jobs link and sign-out, and a flash line for what an action did. No inline script: the one
// script (live updates) is a file of this server's, as the Content-Security-Policy demands.
import { esc } from '../../report/html/escape.js';
import { accessLabel } from '../access-label.js';
import type { Viewer } from '../viewer.js';

export interface PageFrame {
  title: string;
  viewer: Viewer;
  /** Whether the server lets a signed-in viewer act: said to a signed-out one (a signed-in one has canAct). */
  actionsAllowed?: boolean;
  /** What the last action did (or why it was refused), shown once above the page. */
  flash?: { text: string; bad?: boolean } | undefined;
  /** The job whose figures this page receives live (server-sent events), if any. */
  liveJob?: string;
}

export function page(frame: PageFrame, body: string): string {
  const signOut =
    frame.viewer.via === 'session'
      ? `<form method="post" action="/logout" class="inline">${csrfField(frame.viewer)}<button type="submit">sign out</button></form>`
      : '';
  const access = accessLabel(frame.viewer, frame.actionsAllowed ?? frame.viewer.canAct);
  const flash = frame.flash
    ? `<p class="flash${frame.flash.bad ? ' bad' : ''}" role="status">${esc(frame.flash.text)}</p>`
    : '';
  const live = frame.liveJob ? `<script src="/assets/live.js" defer></script>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gbatch ui">
<title>${esc(frame.title)}</title>
<link rel="stylesheet" href="/assets/ui.css">
${live}
</head>
<body${frame.liveJob ? ` data-live-src="${esc(liveSrc(frame.liveJob))}"` : ''}>
<nav class="bar"><a href="/">gbatch: jobs</a><span class="muted">${esc(access)}</span>${signOut}</nav>
<main>
${flash}
${body}
</main>
</body>
</html>
`;
}

/**
 * Where a job page's script connects: the URL itself, its job key percent-encoded. The key as text would
 * not do: esc() shows a control character in it as `\x07`, which names no job.
 */
const liveSrc = (job: string): string => `/jobs/${encodeURIComponent(job)}/live`;

export function csrfField(viewer: Viewer): string {
  return `<input type="hidden" name="csrf" value="${esc(viewer.csrf)}">`;
}

export const count = (n: number): string => n.toLocaleString('en-US');

export const isoTime = (ms: number | null | undefined): string =>
  ms === null || ms === undefined
    ? '-'
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
