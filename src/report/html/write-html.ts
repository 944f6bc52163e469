// `report --format html`: one pass over the items (the first rows kept, problems grouped, unmetered,
// overshooting and mispriced rows counted per group), the timeline already folded from the event log, then the page.
import { jobCommand, journalArgOf, type JobAddress } from '../../core/job-address.js';
import type { Standing } from '../../core/standing.js';
import { invalidRowText, type JournalReports, type JournalRunReads } from '../../journal/index.js';
import { reportItem, type ReportHeader, type ReportItem } from '../model.js';
import type { Timeline } from '../timeline.js';
import { htmlDocument } from './document.js';
import { esc } from './escape.js';
import { ProblemGrouper } from './problems.js';
import {
  estimateSection,
  forecastSection,
  groupKey,
  headline,
  problemsSection,
  rowsSection,
  timeSections,
  type GroupMarks,
  type LastRunSummary,
} from './sections.js';

/** Rows shown inline; the rest are pointed at `--format csv` (100,000 rows would make the page tens of MB). */
export const INLINE_ROWS = 2000;

export interface HtmlContext {
  address: JobAddress;
  standing: Standing | null;
  lastRun: LastRunSummary | null;
  now: number;
  inlineRows?: number;
  /** A presigned HTTPS link of an s3:// output (`--presign-links`), made for the rows shown only. */
  presign?: (uri: string) => Promise<string>;
}

export async function renderHtmlReport(
  journal: JournalRunReads & JournalReports,
  header: ReportHeader,
  timeline: Timeline,
  context: HtmlContext,
): Promise<string> {
  const limit = context.inlineRows ?? INLINE_ROWS;
  const rows: ReportItem[] = [];
  const marks = new Map<string, GroupMarks>();
  let mispriced = 0;
  const grouper = new ProblemGrouper(context.address, context.standing?.frozen ?? null);
  for await (const item of journal.iterate()) {
    // Only the rows shown need their times; the rest are counted and grouped.
    const row = reportItem(item, rows.length < limit ? timeline.items.get(item.id) : undefined);
    if (rows.length < limit) rows.push(row);
    grouper.add(row, invalidRowText(item.contentHash));
    if (row.unmetered || row.overshoot_usd > 0 || row.mispriced) {
      const key = groupKey(row.model, row.resolution);
      const mark = marks.get(key) ?? { unmetered: 0, over: 0, mispriced: 0 };
      if (row.unmetered) mark.unmetered++;
      if (row.overshoot_usd > 0) mark.over++;
      if (row.mispriced) mark.mispriced = (mark.mispriced ?? 0) + 1;
      marks.set(key, mark);
    }
    if (row.mispriced) mispriced++;
  }
  const links = new Map<string, string>();
  if (context.presign)
    for (const row of rows)
      if (row.output?.startsWith('s3://') && !links.has(row.output))
        links.set(row.output, await context.presign(row.output));
  const input = {
    links,
    header,
    timeline,
    journalArg: journalArgOf(context.address),
    address: context.address,
    standing: context.standing,
    lastRun: context.lastRun,
    marks,
    mispriced,
    problems: grouper.finish(),
    rows,
    generatedAt: context.now,
  };
  const body = [
    headline(input),
    estimateSection(input),
    forecastSection(input),
    timeSections(input),
    problemsSection(input),
    rowsSection(input),
    `<footer>Written by gbatch from the journal of <code>${esc(input.journalArg)}</code>. Every figure here is also in <code>${esc(jobCommand(context.address, 'report', '--format', 'json'))}</code>.</footer>`,
  ].join('\n');
  return htmlDocument(`gbatch report: ${header.job}`, body);
}
