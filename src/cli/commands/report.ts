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
import { HELP_OPTION, UsageError, type OptionTable } from '../../job/options.js';
import { RUN_OPTIONS } from '../../job/run-options.js';
import { parseLinkDuration } from '../../core/link-duration.js';
import { parseObjectLocation } from '../../core/object-location.js';
import { objectStoreAt } from '../../io/open-object-store.js';
import type { ObjectStore } from '../../io/output-store.js';
import { commandRunner, type CommandUsage } from '../command-args.js';

export const OPTIONS = {
  ...READ_JOURNAL_OPTIONS,
  format: { type: 'string', choices: ['table', 'json', 'csv', 'html'], default: 'table', help: 'output format' },
  output: { type: 'string', help: 'write to this file (atomically) instead of stdout' },
  'presign-links': {
    type: 'string',
    help: "html only: beside each shown row's s3:// output, a presigned HTTPS link valid this long (15m, 12h, 7d at most); it carries the access key id, never the secret",
  },
  's3-endpoint': {
    ...RUN_OPTIONS['s3-endpoint'],
    help: 'the S3-compatible server the --presign-links point at (default: $AWS_ENDPOINT_URL, else AWS)',
  },
  's3-path-style': RUN_OPTIONS['s3-path-style'],
  help: HELP_OPTION,
} as const satisfies OptionTable;

const USAGE: CommandUsage = {
  synopsis: '[job] [--state F | --journal URL] [--format table|json|csv|html] [--output F] [--presign-links DURATION]',
};

export const run = commandRunner('report', OPTIONS, USAGE, async ({ options, positionals }) => {
  const format = options.format as ReportFormat | 'html';
  const output = options.output;
  if (options['presign-links'] !== undefined && format !== 'html')
    throw new UsageError('--presign-links goes with --format html only (json and csv carry the s3:// URIs)');
  const linkSeconds = options['presign-links'] === undefined ? undefined : parseLinkDuration(options['presign-links']);
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
      const links = linkSeconds === undefined ? undefined : objectLinks(options, linkSeconds);
      let page: string;
      try {
        page = await renderHtml(journal, header, timeline!, address, standing, links?.presign);
      } finally {
        links?.close();
      }
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
});

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
  presign: ((uri: string) => Promise<string>) | undefined,
): Promise<string> {
  const { renderHtmlReport } = await import('../../report/html/write-html.js');
  const lastRun = lastRunSummary(await journal.lastRun());
  return renderHtmlReport(journal, header, timeline, {
    address,
    standing,
    lastRun,
    now: Date.now(),
    ...(presign ? { presign } : {}),
  });
}

/** Presigned links to s3:// outputs, one client per bucket (the SDK is loaded only when links are asked for). */
function objectLinks(
  options: { 's3-endpoint'?: string | undefined; 's3-path-style'?: boolean | undefined },
  seconds: number,
): { presign(uri: string): Promise<string>; close(): void } {
  const stores = new Map<string, Promise<ObjectStore>>();
  const storeOf = (bucket: string): Promise<ObjectStore> => {
    let store = stores.get(bucket);
    if (!store) {
      store = objectStoreAt(`s3://${bucket}`, {
        ...(options['s3-endpoint'] !== undefined ? { endpoint: options['s3-endpoint'] } : {}),
        ...(options['s3-path-style'] ? { pathStyle: true } : {}),
      });
      stores.set(bucket, store);
    }
    return store;
  };
  return {
    presign: async (uri) => (await storeOf(parseObjectLocation(uri, 'output').bucket)).presign(uri, seconds),
    close: () => {
      for (const store of stores.values()) void store.then((s) => s.close()).catch(() => undefined);
    },
  };
}
