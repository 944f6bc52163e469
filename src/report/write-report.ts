// Renders the reconciliation as table, json or csv, streaming the items so a large journal fits.
import { commandNaming } from '../core/job-address.js';
import { eventLog, type JournalReports, type JournalRunReads } from '../journal/index.js';
import { reportItem, type ReportHeader, type ReportItem, type ReportSource } from './model.js';
import { PriceDriftTally, priceDriftLine } from './price-drift.js';
import { ACTUAL_VS_FORECAST_WORDS, forecastBasisWords, type ReportForecast } from './start-forecast.js';
import { printable } from '../core/printable.js';
import { standingJson, type Standing } from '../core/standing.js';
import { renderTable, usd, type Cell } from './table.js';
import { buildTimeline, type ItemTiming, type Timeline } from './timeline.js';

export type ReportFormat = 'table' | 'json' | 'csv';

/** `timeline`: the event log already folded (json and csv read the items' times from their rows without it). */
export async function writeReport(
  journal: JournalRunReads & JournalReports,
  header: ReportHeader,
  format: ReportFormat,
  write: (chunk: string) => void,
  timeline?: Timeline,
  standing?: Standing,
): Promise<void> {
  if (format === 'table') {
    // The headline: what happened, in the standing's one sentence.
    write(`${standing ? `${printable(standing.sentence)}\n\n` : ''}${await renderReportTable(journal, header)}\n`);
    return;
  }
  if (format === 'json') await writeJson(journal, header, write, timeline, standing);
  else await writeCsv(journal, header, write, timeline);
}

const PAGE = 2000;

/**
 * The job's rows in manifest order as a report shows them, each with its last attempt's times: read with the row,
 * or from `timeline` when given; a journal that keeps no times (an older one, read-only) has its event log folded.
 */
async function* timedItems(
  journal: JournalRunReads & JournalReports,
  timeline: Timeline | undefined,
): AsyncGenerator<[ReportSource, ItemTiming | undefined]> {
  let folded = timeline;
  if (!folded && (await journal.reportRows(0, 1)) === undefined) folded = await buildTimeline(eventLog(journal));
  if (folded) {
    for await (const item of journal.iterate()) yield [item, folded.items.get(item.id)];
    return;
  }
  for (let after = 0; ;) {
    const page = (await journal.reportRows(after, PAGE)) ?? [];
    if (page.length === 0) return;
    for (const row of page) yield [row, row.times];
    after = page[page.length - 1]!.seq;
  }
}

async function writeJson(
  journal: JournalRunReads & JournalReports,
  header: ReportHeader,
  write: (chunk: string) => void,
  timeline: Timeline | undefined,
  standing: Standing | undefined,
): Promise<void> {
  const headline = standing ? `"standing":${JSON.stringify(standingJson(standing))},` : '';
  write(
    `{"job":${JSON.stringify(header.job)},${headline}"totals":${JSON.stringify(header.totals)},"by_model":${JSON.stringify(header.by_model)},"forecast":${JSON.stringify(header.forecast)},"items":[`,
  );
  let first = true;
  let buffer = '';
  const drift = new PriceDriftTally();
  for await (const [item, timing] of timedItems(journal, timeline)) {
    const row = reportItem(item, timing);
    drift.add(row);
    buffer += (first ? '\n' : ',\n') + JSON.stringify(row);
    first = false;
    if (buffer.length > 1 << 16) {
      write(buffer);
      buffer = '';
    }
  }
  // After the items: it is tallied from them as they stream.
  write(`${buffer}\n],"price_drift":${JSON.stringify(drift.finish())}}\n`);
}

type CsvRow = Partial<Record<keyof ReportItem | 'rows', unknown>>;

const CSV_COLUMNS: ReadonlyArray<keyof CsvRow> = [
  'id',
  'kind',
  'model',
  'state',
  'task_id',
  'resolution',
  'final_resolution',
  'has_reference_video',
  'estimated_usd',
  'actual_usd',
  'overshoot_usd',
  'gateway_charge_usd',
  'total_tokens',
  'output',
  'sha256',
  'bytes',
  'attempts',
  'auto_resubmits',
  'unmetered',
  'error',
  'source',
  // Added later, at the end: a script reading columns by position keeps working.
  'submitted_at',
  'finished_at',
  'duration_ms',
  'rows',
  'table_usd',
  'mispriced',
];

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'object'
      ? String((value as { message?: unknown }).message ?? JSON.stringify(value))
      : String(value);
  // A leading = + - @ would run as a formula in a spreadsheet; quote-and-prefix keeps the text as text.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value !== 'number' ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const csvLine = (row: CsvRow): string => `${CSV_COLUMNS.map((c) => csvCell(row[c])).join(',')}\n`;

/**
 * One rectangular table: a line per item (`rows` 1), then a `model-total` line per model and resolution
 * and one `total` line, told apart by `kind`. Spreadsheets and CSV readers take it whole (no second
 * header, no blank line that ends a table early); filter `kind` before summing a column.
 */
async function writeCsv(
  journal: JournalRunReads & JournalReports,
  header: ReportHeader,
  write: (chunk: string) => void,
  timeline: Timeline | undefined,
): Promise<void> {
  write(CSV_COLUMNS.join(',') + '\n');
  let buffer = '';
  for await (const [item, timing] of timedItems(journal, timeline)) {
    buffer += csvLine({ ...reportItem(item, timing), rows: 1 });
    if (buffer.length > 1 << 16) {
      write(buffer);
      buffer = '';
    }
  }
  for (const g of header.by_model) {
    buffer += csvLine({
      kind: 'model-total',
      model: g.model,
      resolution: g.resolution,
      estimated_usd: g.estimated_usd,
      actual_usd: g.actual_usd,
      total_tokens: g.total_tokens,
      rows: g.items,
    });
  }
  const t = header.totals;
  buffer += csvLine({
    kind: 'total',
    estimated_usd: t.estimated_usd,
    actual_usd: t.actual_usd,
    overshoot_usd: t.overshoot_usd,
    gateway_charge_usd: t.gateway_charge_usd,
    total_tokens: header.by_model.reduce((n, g) => n + g.total_tokens, 0),
    submitted_at: t.started_at,
    finished_at: t.ended_at,
    duration_ms: t.duration_ms,
    rows: t.items,
  });
  write(buffer);
}

export async function renderReportTable(
  journal: JournalRunReads & JournalReports,
  header: ReportHeader,
  /** The first rows only, and how the command that lists them all names the job's journal. */
  first?: { rows: number; journalArg: string },
): Promise<string> {
  const maxItems = first?.rows ?? Infinity;
  const { totals } = header;
  const rows: Cell[][] = [];
  const errors: string[] = [];
  let shown = 0;
  const drift = new PriceDriftTally();
  for await (const item of journal.iterate()) {
    if (shown++ >= maxItems) break;
    const r = reportItem(item);
    drift.add(r);
    const note = itemNote(r);
    // A long error stays readable in full below the table; its cell keeps the table narrow.
    const cell =
      note.length > NOTE_WIDTH
        ? `${note.slice(0, NOTE_WIDTH - 6)}... [${errors.push(`[${errors.length + 1}] ${printable(r.id)}: ${printable(note)}`)}]`
        : note;
    rows.push([
      r.id,
      r.kind,
      r.model,
      r.state,
      r.resolution === r.final_resolution || !r.final_resolution
        ? r.resolution
        : `${r.resolution}->${r.final_resolution}`,
      usd(r.estimated_usd),
      usd(r.actual_usd),
      r.actual_usd === null ? '-' : usd(r.actual_usd - r.estimated_usd),
      cell,
    ]);
  }
  const items = renderTable(
    ['id', 'kind', 'model', 'state', 'res', 'estimate', 'actual', 'delta', 'note'],
    rows,
    new Set([5, 6, 7]),
  );
  const inFull = errors.length > 0 ? `\n\nNotes in full:\n${errors.join('\n')}` : '';
  const groups = modelTable(header.by_model);
  const forecast = header.forecast ? `\n\n${forecastTable(header.forecast)}` : '';
  const states = Object.entries(totals.by_state)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  const more =
    first && totals.items > first.rows
      ? `\n${totals.items - first.rows} more rows: ${commandNaming(first.journalArg, 'report', '--format', 'csv')}`
      : '';
  return [
    `Job ${printable(header.job)}: ${totals.items} item(s): ${states || 'none'}`,
    '',
    items + more + inFull,
    '',
    groups + forecast,
    '',
    ...moneyLines(totals),
    // Tallied from the rows shown: a run's summary (a few rows) leaves it to the run's own log line.
    ...[totals.items > maxItems ? undefined : priceDriftLine(drift.finish())]
      .filter((line) => line !== undefined)
      .map(printable),
  ].join('\n');
}

/** The table of each model and resolution: its items, settled items, estimate, actual and tokens. */
function modelTable(byModel: ReportHeader['by_model']): string {
  return renderTable(
    ['model', 'resolution', 'items', 'settled', 'estimate', 'actual', 'delta(settled)', 'tokens'],
    byModel.map((g) => [
      g.model,
      g.resolution,
      g.items,
      g.settled_items,
      usd(g.estimated_usd),
      usd(g.actual_usd),
      usd(g.delta_usd),
      g.total_tokens,
    ]),
    new Set([2, 3, 4, 5, 6, 7]),
  );
}

/** The lines on the job's money: estimate, actual and delta, what actual means, reserved and budget, charges. */
function moneyLines(totals: ReportHeader['totals']): string[] {
  return [
    `Estimated ${usd(totals.estimated_usd)} in all; settled ${totals.settled_items} item(s): estimate ${usd(totals.settled_estimated_usd)}, actual ${usd(totals.actual_usd)}, delta ${usd(totals.delta_usd)}` +
      (totals.overshoot_usd > 0 ? `, overshoot ${usd(totals.overshoot_usd)}` : ''),
    ...(totals.settled_items > 0
      ? [
          `Actual: what every settled item is booked at: chat and responses from their token usage, videos from their total_tokens (the gateway's charge where it was higher)`,
        ]
      : []),
    `Reserved (unsettled) ${usd(totals.reserved_usd)}; budget ${totals.budget_usd === null ? 'none' : usd(totals.budget_usd, 2)}`,
    ...(totals.gateway_charge_usd !== null
      ? [
          `Gateway-reported charges ${usd(totals.gateway_charge_usd)}: what the gateway itself reported, for ${totals.gateway_charged_items} video task(s); it reports none per chat or responses request, which actual counts from their token usage`,
        ]
      : []),
    ...(totals.unmetered_items > 0
      ? [
          `Unmetered: ${totals.unmetered_items} item(s) came back without a usable count (usage / total_tokens); each is booked at the most it could be billed`,
        ]
      : []),
  ];
}

const NOTE_WIDTH = 60;

/** The forecast the job started with against each model's bill. */
function forecastTable(forecast: ReportForecast): string {
  const models = Object.entries(forecast.by_model);
  return (
    `Forecast at the start (${forecast.made_at}) against the bill:\n` +
    renderTable(
      ['model', 'P50', 'P90', 'actual', 'actual vs forecast', 'basis'],
      models.map(([model, f]) => [
        model,
        usd(f.p50_usd),
        usd(f.p90_usd),
        usd(f.actual_usd),
        ACTUAL_VS_FORECAST_WORDS[f.actual_vs_forecast],
        forecastBasisWords(f),
      ]),
      new Set([1, 2, 3]),
    )
  );
}

function itemNote(r: ReportItem): string {
  const message = r.error?.message ?? '';
  const notes = [
    r.unmetered && !message.startsWith('unmetered') ? 'unmetered (booked at its bound)' : '',
    r.mispriced && !message.startsWith('priced wrong')
      ? `priced wrong: gateway ${usd(r.gateway_charge_usd)}, table ${usd(r.table_usd)}`
      : '',
    message,
  ];
  return notes.filter((note) => note !== '').join('; ');
}
