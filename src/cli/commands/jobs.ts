// `gbatch jobs`: every job of a journal (the SQLite journals of state/, one file, or a PostgreSQL
// database), one line each: its standing, rows done, spend and reservations against its budget, and its
// last activity; the figures are the dashboard's (ui/job-view.ts), so the two cannot disagree.
import { statSync } from 'node:fs';
import { EXIT_CODE } from '../../core/exit-codes.js';
import { printable } from '../../core/printable.js';
import { isDatabaseUrl, openJournalReader, type JournalReader } from '../../journal/index.js';
import { printableLocation } from '../../journal/database-url.js';
import { journalSelectionOptions, selectedJournal } from '../../job/journal-selection.js';
import { HELP_OPTION, UsageError, type OptionTable } from '../../job/options.js';
import { renderTable, usd } from '../../report/table.js';
import { jobSummary, type JobSummary } from '../../ui/job-view.js';
import { commandRunner, type CommandUsage } from '../command-args.js';

export const OPTIONS = {
  ...journalSelectionOptions('listed'),
  json: { type: 'boolean', help: 'print one JSON object' },
  help: HELP_OPTION,
} as const satisfies OptionTable;

/** A job listed, or one whose journal could not be read. */
export type JobLine = { key: string; summary: JobSummary } | { key: string; location: string; unreadable: string };

const USAGE: CommandUsage = {
  synopsis: '[--journal URL | --state-dir DIR] [--json]',
  noArguments: true,
};

export const run = commandRunner('jobs', OPTIONS, USAGE, async ({ options }) => {
  const { source, flag } = selectedJournal(options, process.env);
  const where = printableLocation(source);
  if (!isDatabaseUrl(source) && statSync(source, { throwIfNoEntry: false }) === undefined)
    throw new UsageError(
      `${source}: no such journal or folder (${flag}); run gbatch jobs where the jobs ran, or pass --state-dir or --journal`,
    );
  const reader = await openJournalReader(source);
  let lines: JobLine[];
  try {
    lines = await readJobs(reader);
  } finally {
    await reader.close();
  }
  const out = options.json ? [JSON.stringify(jobsJson(where, lines))] : jobsText(where, lines);
  process.stdout.write(`${out.join('\n')}\n`);
  return lines.some((line) => 'unreadable' in line) ? EXIT_CODE.someFailed : EXIT_CODE.ok;
});

async function readJobs(reader: JournalReader): Promise<JobLine[]> {
  const lines: JobLine[] = [];
  for (const job of await reader.jobs()) {
    try {
      const queries = await reader.queries(job);
      try {
        lines.push({ key: job.key, summary: await jobSummary(job, queries) });
      } finally {
        await queries.close();
      }
    } catch (err) {
      lines.push({ key: job.key, location: job.location, unreadable: printable((err as Error).message) });
    }
  }
  return lines.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const isoSeconds = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function spendText(summary: JobSummary): string {
  const t = summary.header.totals;
  const budget = t.budget_usd === null ? 'no budget' : usd(t.budget_usd, 2);
  return `${usd(t.actual_usd, 2)} + ${usd(t.reserved_usd, 2)} / ${budget}`;
}

export function jobsText(where: string, lines: readonly JobLine[]): string[] {
  if (lines.length === 0) return [`No job in ${printable(where)}.`];
  const rows = lines.map((line) =>
    'unreadable' in line
      ? [printable(line.key), `unreadable: ${line.unreadable}`, '', '', '']
      : [
          printable(line.summary.name),
          printable(line.summary.standing.label),
          `${line.summary.finished} / ${line.summary.header.totals.items}`,
          spendText(line.summary),
          isoSeconds(line.summary.activity.lastAt) ?? '-',
        ],
  );
  return [
    `${lines.length} job(s) in ${printable(where)}:`,
    '',
    renderTable(['job', 'standing', 'rows done', 'spent + reserved / budget', 'last activity'], rows, new Set([2, 3])),
  ];
}

function jobsJson(where: string, lines: readonly JobLine[]): Record<string, unknown> {
  return {
    journal: where,
    jobs: lines.map((line) => {
      if ('unreadable' in line) return { key: line.key, location: line.location, unreadable: line.unreadable };
      const { summary } = line;
      const t = summary.header.totals;
      return {
        key: summary.key,
        name: summary.name,
        standing: { kind: summary.standing.kind, text: summary.standing.label },
        rows: { total: t.items, finished: summary.finished, by_state: t.by_state },
        spent_usd: t.actual_usd,
        reserved_usd: t.reserved_usd,
        budget_usd: t.budget_usd,
        live_runners: summary.runners.filter((r) => r.liveness.alive).length,
        last_activity: isoSeconds(summary.activity.lastAt),
      };
    }),
  };
}
