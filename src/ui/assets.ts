// The dashboard's two files: its stylesheet (the HTML report's, plus the bar, forms and badges) and the
// script that keeps a job's figures live. The script is the page's only one, served from here, so the
// Content-Security-Policy allows scripts from this server alone; without it every page still works.
import { REPORT_CSS } from '../report/html/document.js';

export const UI_CSS = `${REPORT_CSS}
nav.bar { display: flex; gap: 16px; align-items: center; padding: 8px 28px; background: #0f172a; color: #e2e8f0; font-size: 13px; }
nav.bar a { color: #fff; font-weight: 600; text-decoration: none; } nav.bar .muted { color: #94a3b8; flex: 1; }
nav.bar button { background: none; border: 1px solid #475569; color: #e2e8f0; border-radius: 4px; padding: 2px 8px; cursor: pointer; }
form.inline { display: inline; }
.flash { padding: 8px 12px; border-radius: 6px; background: #ecfdf5; border-left: 4px solid var(--good); }
.flash.bad { background: #fef2f2; border-left-color: var(--bad); }
.filters { display: flex; gap: 8px; flex-wrap: wrap; margin: 12px 0; }
.filters input, .filters select, .login input, .confirm input { font: inherit; padding: 4px 6px; border: 1px solid #cbd5e1; border-radius: 4px; }
button { font: inherit; padding: 4px 12px; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
.standing { display: inline-block; padding: 0 8px; border-radius: 9px; font-size: 12px; background: #e2e8f0; white-space: nowrap; }
.standing.running { background: #dbeafe; color: #1e40af; } .standing.finished { background: #d1fae5; color: #065f46; }
.standing.needs-operator { background: #fee2e2; color: #991b1b; } .standing.stopped-on-budget { background: #fef3c7; color: #92400e; }
.standing.cancelled, .standing.stopped { background: #f1f5f9; color: #334155; }
a.action { display: inline-block; margin: 2px 6px 2px 0; padding: 4px 10px; border: 1px solid var(--accent); border-radius: 4px; text-decoration: none; }
.crumbs { color: var(--muted); font-size: 12px; } table.facts th { width: 160px; }
pre.detail { margin: 0; white-space: pre-wrap; word-break: break-all; font-size: 11.5px; max-height: 160px; overflow: auto; }
meter { width: 70px; vertical-align: middle; }
`;

/** Connects to the job's live stream and puts each fragment it sends in place (by element id). */
export const LIVE_JS = `'use strict';
(function () {
  var src = document.body.getAttribute('data-live-src');
  if (!src || !window.EventSource) return;
  var source = new EventSource(src);
  source.addEventListener('figures', function (event) {
    var fragments = JSON.parse(event.data);
    Object.keys(fragments).forEach(function (id) {
      var element = document.getElementById(id);
      if (element) element.innerHTML = fragments[id];
    });
    document.body.setAttribute('data-live-updates', String(Number(document.body.getAttribute('data-live-updates') || '0') + 1));
  });
})();
`;
