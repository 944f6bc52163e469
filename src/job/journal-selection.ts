// Which journal a command over every job reads (`gbatch jobs`, `gbatch ui`): a PostgreSQL database
// (--journal or GBATCH_JOURNAL_URL), one SQLite file (--journal), or each SQLite journal of a folder.
import type { OptionTable } from './options.js';

/** --journal and --state-dir; `verb` says what becomes of the folder's journals (listed, shown). */
export function journalSelectionOptions(verb: string) {
  return {
    journal: {
      type: 'string',
      help: 'a postgres:// URL (every job it holds; default: GBATCH_JOURNAL_URL) or one SQLite journal file',
    },
    'state-dir': {
      type: 'string',
      default: 'state',
      help: `without --journal: the folder whose SQLite journals (*.db) are ${verb}, one job each`,
    },
  } as const satisfies OptionTable;
}

export interface JournalSelection {
  /** A database URL, an SQLite file or a folder of them. */
  source: string;
  /** Where it came from, for a message that names what to change. */
  flag: '--journal' | 'GBATCH_JOURNAL_URL' | '--state-dir';
}

export function selectedJournal(
  options: { journal?: string | undefined; 'state-dir': string },
  env: NodeJS.ProcessEnv,
): JournalSelection {
  if (options.journal !== undefined) return { source: options.journal, flag: '--journal' };
  if (env.GBATCH_JOURNAL_URL !== undefined) return { source: env.GBATCH_JOURNAL_URL, flag: 'GBATCH_JOURNAL_URL' };
  return { source: options['state-dir'], flag: '--state-dir' };
}
