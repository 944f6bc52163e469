import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { reportHeader } from '../../report/model.js';
import { writeReport, type ReportFormat } from '../../report/write-report.js';
import { openCommandJournal } from '../command-journal.js';
import { EXIT_CODES } from '../exit-codes.js';
import { helpText, parseOptions, UsageError, type OptionTable } from '../options.js';

export const OPTIONS = {
  state: { type: 'string', help: 'the SQLite journal (default: state/<job>.db, or the only journal in state/)' },
  journal: { type: 'string', help: 'the journal on a database: a postgres:// URL (default: GBATCH_JOURNAL_URL); a path means an SQLite file, as --state' },
  format: { type: 'string', choices: ['table', 'json', 'csv', 'html'], default: 'table', help: 'output format' },
  output: { type: 'string', help: 'write to this file (atomically) instead of stdout' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionTable;

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions(OPTIONS, argv);
  if (options.help) {
    process.stdout.write(`${helpText('report', '[job] [--state F | --journal URL] [--format table|json|csv|html] [--output F]', OPTIONS, EXIT_CODES.report)}\n`);
    return 0;
  }
  if (options.format === 'html') throw new UsageError('--format html is not available yet (a later release brings it); use table, json or csv');
  const format = options.format;
  const output = options.output;
  const { store: journal } = await openCommandJournal(options, positionals, { readonly: true, withIds: false });
  try {
    const job = await journal.getJob();
    const budget = job?.budgetUsd ?? null;
    const header = await reportHeader(journal, job?.name ?? basename(journal.location, '.db'), budget);
    if (!output) {
      await writeReport(journal, header, format as ReportFormat, (chunk) => process.stdout.write(chunk));
      return 0;
    }
    mkdirSync(dirname(output), { recursive: true });
    const temp = join(dirname(output), `.${basename(output)}.${process.pid}.part`);
    const fd = openSync(temp, 'w');
    try {
      await writeReport(journal, header, format as ReportFormat, (chunk) => writeSync(fd, chunk));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, output);
    process.stderr.write(`gbatch report: wrote ${output}\n`);
    return 0;
  } finally {
    await journal.close();
  }
}
