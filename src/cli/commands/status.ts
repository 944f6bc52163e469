// `gbatch status`: the journal's status as text, as JSON (--json), or as a health check (--check). The
// data is gathered once (status/status-data.ts); the views are pure functions of it.
import { commandAddress, openCommandJournal, READ_JOURNAL_OPTIONS } from '../command-journal.js';
import { HELP_OPTION, type OptionTable } from '../../job/options.js';
import { commandRunner, type CommandUsage } from '../command-args.js';
import { gatherStatus } from '../status/status-data.js';
import { statusJson } from '../status/status-json.js';
import { checkExitCode, checkLines, statusLines } from '../status/status-text.js';

export const OPTIONS = {
  ...READ_JOURNAL_OPTIONS,
  json: { type: 'boolean', help: 'print one JSON object' },
  check: {
    type: 'boolean',
    help: 'for health checks: one line per thing that needs an operator, exit 1 if any (0: none); with --json, the usual object',
  },
  help: HELP_OPTION,
} as const satisfies OptionTable;

const USAGE: CommandUsage = {
  synopsis: '[job] [--state F | --journal URL] [--json] [--check]',
};

export const run = commandRunner('status', OPTIONS, USAGE, async ({ options, positionals }) => {
  const opened = await openCommandJournal(options, positionals, { readonly: true, withIds: false });
  const journal = opened.store;
  try {
    const status = await gatherStatus(journal, await commandAddress(opened));
    const exitCode = options.check ? checkExitCode(status) : 0;
    const lines = options.json
      ? [JSON.stringify(statusJson(status))]
      : options.check
        ? checkLines(status)
        : statusLines(status);
    process.stdout.write(`${lines.join('\n')}\n`);
    return exitCode;
  } finally {
    await journal.close();
  }
});
