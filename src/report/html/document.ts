// The page around the sections: one self-contained HTML file. No script, no URL to fetch (fonts are the
// system's, charts are inline SVG), and a Content-Security-Policy that would stop a stray reference anyway.
import { esc } from './escape.js';

export const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export const REPORT_CSS = `
:root { --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; --bg: #f8fafc; --accent: #2563eb; --bad: #dc2626; --warn: #d97706; --good: #059669; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }
header.top { display: flex; justify-content: space-between; align-items: baseline; gap: 16px; flex-wrap: wrap; border-bottom: 2px solid var(--ink); padding-bottom: 8px; }
h1 { font-size: 22px; margin: 0; } h1 .job { color: var(--accent); }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.muted, figcaption { color: var(--muted); font-size: 12px; }
section { break-inside: auto; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr)); gap: 12px; margin-top: 16px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; break-inside: avoid; }
.card .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .v { font-size: 21px; white-space: nowrap; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .s { font-size: 12px; color: var(--muted); }
.verdict { margin-top: 14px; padding: 12px 14px; border-radius: 8px; background: #fff; border-left: 5px solid var(--good); }
.verdict.attention { border-left-color: var(--warn); } .verdict.bad { border-left-color: var(--bad); }
.verdict p { margin: 4px 0; }
code, .cmd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.cmd { display: block; background: #0f172a; color: #e2e8f0; padding: 6px 10px; border-radius: 6px; margin: 4px 0; white-space: pre-wrap; word-break: break-all; }
figure { margin: 8px 0 16px; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; }
figure figure { border: 0; padding: 0; margin: 0; background: none; }
.key { display: flex; gap: 14px; flex-wrap: wrap; font-size: 12px; margin-bottom: 4px; }
.key span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 5px; border-radius: 2px; background: var(--c); vertical-align: -1px; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
table { border-collapse: collapse; width: 100%; background: #fff; font-size: 12.5px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; position: sticky; top: 0; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr { break-inside: avoid; }
td.nw { white-space: nowrap; }
td.err { max-width: 420px; overflow-wrap: anywhere; color: #7f1d1d; }
.state { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 11.5px; color: #fff; background: var(--c, #64748b); white-space: nowrap; }
.mark { font-size: 11px; padding: 0 4px; border-radius: 4px; margin-left: 4px; white-space: nowrap; }
.mark.over { background: #fee2e2; color: var(--bad); } .mark.unmetered { background: #fef3c7; color: #92400e; }
.problem { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 8px 0; break-inside: avoid; }
.problem h3 { font-size: 14px; margin: 0 0 4px; } .problem .cause { overflow-wrap: anywhere; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
@media (max-width: 760px) { .grid2 { grid-template-columns: 1fr; } }
@media print {
  @page { size: A4; margin: 14mm 12mm; }
  body { background: #fff; font-size: 11px; }
  main { max-width: none; padding: 0; }
  .card, figure, .problem, .verdict { border-color: #cbd5e1; }
  .cmd { background: #f1f5f9; color: #0f172a; border: 1px solid #cbd5e1; }
  th { position: static; }
  h2 { break-after: avoid; }
  thead { display: table-header-group; }
}
`;

export function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gbatch">
<title>${esc(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
