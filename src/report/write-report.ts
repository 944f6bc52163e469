// Renders the reconciliation as table, json or csv, streaming the items so a large journal fits.
import type { JournalStore } from '../journal/index.js';
import { reportHeader, reportItem, type ReportHeader, type ReportItem } from './model.js';
import { printable } from '../core/printable.js';
import { renderTable, usd, type Cell } from './table.js';

export type ReportFormat = 'table' | 'json' | 'csv';

export async function writeReport(journal: JournalStore, header: ReportHeader, format: ReportFormat, write: (chunk: string) => void): Promise<void> {
  if (format === 'json') await writeJson(journal, header, write);
  else if (format === 'csv') await writeCsv(journal, write);
  else write(`${await renderReportTable(journal, header)}\n`);
}

async function writeJson(journal: JournalStore, header: ReportHeader, write: (chunk: string) => void): Promise<void> {
  write(`{"job":${JSON.stringify(header.job)},"totals":${JSON.stringify(header.totals)},"by_model":${JSON.stringify(header.by_model)},"items":[`);
  let first = true;
  let buffer = '';
  for await (const item of journal.iterate()) {
    buffer += (first ? '\n' : ',\n') + JSON.stringify(reportItem(item));
    first = false;
    if (buffer.length > 1 << 16) {
      write(buffer);
      buffer = '';
    }
  }
  write(`${buffer}\n]}\n`);
}

const CSV_COLUMNS: ReadonlyArray<keyof ReportItem> = [
  'id', 'kind', 'model', 'state', 'task_id', 'resolution', 'final_resolution', 'has_reference_video',
  'estimated_usd', 'actual_usd', 'overshoot_usd', 'gateway_charge_usd', 'total_tokens', 'output', 'sha256', 'bytes',
  'attempts', 'auto_resubmits', 'unmetered', 'error', 'source',
];

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? String((value as { message?: unknown }).message ?? JSON.stringify(value)) : String(value);
  // A leading = + - @ would run as a formula in a spreadsheet; quote-and-prefix keeps the text as text.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value !== 'number' ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

async function writeCsv(journal: JournalStore, write: (chunk: string) => void): Promise<void> {
  write(`${CSV_COLUMNS.join(',')}\n`);
  let buffer = '';
  for await (const item of journal.iterate()) {
    const row = reportItem(item);
    buffer += `${CSV_COLUMNS.map((c) => csvCell(row[c])).join(',')}\n`;
    if (buffer.length > 1 << 16) {
      write(buffer);
      buffer = '';
    }
  }
  write(buffer);
}

export async function renderReportTable(journal: JournalStore, header: ReportHeader, maxItems = Infinity): Promise<string> {
  const { totals } = header;
  const rows: Cell[][] = [];
  let shown = 0;
  for await (const item of journal.iterate()) {
    if (shown++ >= maxItems) break;
    const r = reportItem(item);
    rows.push([r.id, r.kind, r.model, r.state, r.resolution === r.final_resolution || !r.final_resolution ? r.resolution : `${r.resolution}->${r.final_resolution}`,
      usd(r.estimated_usd), usd(r.actual_usd), r.actual_usd === null ? '-' : usd(r.actual_usd - r.estimated_usd), itemNote(r)]);
  }
  const items = renderTable(['id', 'kind', 'model', 'state', 'res', 'estimate', 'actual', 'delta', 'note'], rows, new Set([5, 6, 7]));
  const groups = renderTable(
    ['model', 'resolution', 'items', 'settled', 'estimate', 'actual', 'delta(settled)', 'tokens'],
    header.by_model.map((g) => [g.model, g.resolution, g.items, g.settled_items, usd(g.estimated_usd), usd(g.actual_usd), usd(g.delta_usd), g.total_tokens]),
    new Set([2, 3, 4, 5, 6, 7]),
  );
  const states = Object.entries(totals.by_state).map(([s, n]) => `${s} ${n}`).join(', ');
  const more = totals.items > maxItems ? `\n(${totals.items - maxItems} more rows: gbatch report --format csv)` : '';
  return [
    `Job ${printable(header.job)}: ${totals.items} item(s): ${states || 'none'}`,
    '',
    items + more,
    '',
    groups,
    '',
    `Estimated ${usd(totals.estimated_usd)} in all; settled ${totals.settled_items} item(s): estimate ${usd(totals.settled_estimated_usd)}, actual ${usd(totals.actual_usd)}, delta ${usd(totals.delta_usd)}` +
      (totals.overshoot_usd > 0 ? `, overshoot ${usd(totals.overshoot_usd)}` : ''),
    `Reserved (unsettled) ${usd(totals.reserved_usd)}; budget ${totals.budget_usd === null ? 'none' : usd(totals.budget_usd, 2)}` +
      (totals.gateway_charge_usd !== null ? `; gateway-reported charges ${usd(totals.gateway_charge_usd)}` : ''),
    ...(totals.unmetered_items > 0
      ? [`Unmetered: ${totals.unmetered_items} item(s) came back without a usable count (usage / total_tokens); each is booked at the most it could be billed`]
      : []),
  ].join('\n');
}

function itemNote(r: ReportItem): string {
  const message = r.error?.message?.slice(0, 60) ?? '';
  return r.unmetered && !message.startsWith('unmetered') ? `unmetered (booked at its bound)${message ? `; ${message}` : ''}` : message;
}
