import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { checkWritableDir } from '../../io/preflight.js';
import { eventLog, type JournalReports, type JournalRunReads } from '../../journal/index.js';
import { lastRunSummary } from '../../report/last-run.js';
import { reportHeader, type ReportHeader } from '../../report/model.js';
import { buildTimeline, type Timeline } from '../../report/timeline.js';
import { timingSummary } from '../../report/timing-summary.js';
import { writeReport, type ReportFormat } from '../../report/write-report.js';
import { commandAddress, openCommandJournal, READ_JOURNAL_OPTIONS } from '../command-journal.js';
import { readStanding } from '../../job/standing-read.js';
import type { JobAddress } from '../../core/job-address.js';
import type { Standing } from '../../core/standing.js';
import { HELP_OPTION, type OptionTable } from '../../job/options.js';
import { commandArgs } from '../command-args.js';

export const OPTIONS = {
  ...READ_JOURNAL_OPTIONS,
  format: { type: 'string', choices: ['table', 'json', 'csv', 'html'], default: 'table', help: 'output format' },
  output: { type: 'string', help: 'write to this file (atomically) instead of stdout' },
  help: HELP_OPTION,
} as const satisfies OptionTable;

export async function run(argv: string[]): Promise<number> {
  const args = commandArgs('report', OPTIONS, argv, {
    synopsis: '[job] [--state F | --journal URL] [--format table|json|csv|html] [--output F]',
  });
  if (!args) return 0;
  const { options, positionals } = args;
  const format = options.format as ReportFormat | 'html';
  const output = options.output;
  const opened = await openCommandJournal(options, positionals, { readonly: true, withIds: false });
  const journal = opened.store;
  try {
    const address = await commandAddress(opened);
    const lastRun = await journal.lastRun();
    const standing = await readStanding(journal, address, lastRun && { ...lastRun, ended: lastRun.endedAt !== null });
    const job = await journal.getJob();
    const budget = job?.budgetUsd ?? null;
    // The page's charts fold the event log; json and csv read each row's times from the row, the table shows none.
    const timeline = format === 'html' ? await buildTimeline(eventLog(journal)) : undefined;
    const times = (await timingSummary(journal)).timeline;
    const header = await reportHeader(journal, job?.name ?? basename(journal.location, '.db'), budget, times);
    if (format === 'html') {
      const page = await renderHtml(journal, header, timeline!, address, standing);
      if (output) await writeAtomically(output, async (write) => write(page));
      else process.stdout.write(page);
      return 0;
    }
    if (!output) {
      await writeReport(journal, header, format, (chunk) => process.stdout.write(chunk), timeline, standing);
      return 0;
    }
    await writeAtomically(output, (write) => writeReport(journal, header, format, write, timeline, standing));
    return 0;
  } finally {
    await journal.close();
  }
}

async function writeAtomically(output: string, fill: (write: (chunk: string) => void) => Promise<void>): Promise<void> {
  checkWritableDir(dirname(output), '--output');
  const temp = join(dirname(output), `.${basename(output)}.${process.pid}.part`);
  const fd = openSync(temp, 'w');
  try {
    await fill((chunk) => writeSync(fd, chunk));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, output);
  process.stderr.write(`gbatch report: wrote ${output}\n`);
}

/** Loaded only for html: the charting library stays out of the other formats' start-up. */
async function renderHtml(
  journal: JournalRunReads & JournalReports,
  header: ReportHeader,
  timeline: Timeline,
  address: JobAddress,
  standing: Standing,
): Promise<string> {
  const { renderHtmlReport } = await import('../../report/html/write-html.js');
  const lastRun = lastRunSummary(await journal.lastRun());
  return renderHtmlReport(journal, header, timeline, { address, standing, lastRun, now: Date.now() });
}
