// `gbatch journal migrate`: the journal's schema brought to this gbatch's version, on purpose.
import { migrateDatabase, openJournalFile } from '../../journal/open-store.js';
import { journalUrl } from '../command-journal.js';
import { HELP_OPTION, UsageError, type OptionTable } from '../../job/options.js';
import { commandRunner, type CommandUsage } from '../command-args.js';

export const OPTIONS = {
  journal: { type: 'string', help: 'the journal: a postgres:// URL (default: GBATCH_JOURNAL_URL), or an SQLite file' },
  help: HELP_OPTION,
} as const satisfies OptionTable;

const USAGE: CommandUsage = {
  synopsis: 'migrate [--journal URL]',
  about:
    "\nCreates or upgrades the journal's schema (versioned; several jobs share one database). Runners do it\n" +
    'on connect too, under a lock; this does it ahead of them, e.g. from a deployment step.\n',
};

export const run = commandRunner('journal', OPTIONS, USAGE, async ({ options, positionals }) => {
  const [action, ...rest] = positionals;
  if (action !== 'migrate')
    throw new UsageError(
      `Expected \`gbatch journal migrate\`, got ${action === undefined ? 'nothing' : `\`${action}\``}`,
    );
  if (rest.length > 0)
    throw new UsageError(
      `\`gbatch journal migrate\` takes no arguments (got ${rest.join(' ')}); name the journal with --journal`,
    );
  const server = journalUrl({ journal: options.journal });
  if (server) {
    const { location, version, applied } = await migrateDatabase(server.url);
    process.stdout.write(
      `${location}: journal schema at version ${version}${applied > 0 ? ` (${applied} step(s) applied)` : ' (already current)'}\n`,
    );
    return 0;
  }
  if (options.journal === undefined)
    throw new UsageError('name the journal: --journal postgres://... (or GBATCH_JOURNAL_URL), or an SQLite file');
  const store = openJournalFile(options.journal);
  await store.close();
  process.stdout.write(`${options.journal}: journal schema current\n`);
  return 0;
});
