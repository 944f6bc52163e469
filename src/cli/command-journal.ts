// Which journal a command (status, report, resolve, retry) opens: a database URL (--journal, else
// GBATCH_JOURNAL_URL) with the job named, else the SQLite file --state names, the job's, or the only one in state/.
import { isDatabaseUrl, openStore } from '../journal/open-store.js';
import type { JournalStore } from '../journal/index.js';
import { SqliteJournalStore } from '../journal/sqlite/sqlite-store.js';
import { jobNameFor, journalAndIds, locateJournal } from './locate-journal.js';
import { UsageError } from './options.js';

export interface JournalFlags { state?: string | undefined; journal?: string | undefined }

export interface CommandJournal {
  store: JournalStore;
  /** How advice names the job's journal in a command to paste. */
  arg: { jobName: string | undefined; location: string; fromEnv: boolean };
  ids: string[];
}

/** The URL in force: --journal (a path there means an SQLite file), else GBATCH_JOURNAL_URL. */
export function journalUrl(flags: JournalFlags, env: NodeJS.ProcessEnv = process.env): { url: string; fromEnv: boolean } | undefined {
  if (flags.journal !== undefined && flags.state !== undefined) {
    throw new UsageError('--journal and --state both name the journal: give one');
  }
  if (flags.journal !== undefined) return isDatabaseUrl(flags.journal) ? { url: flags.journal, fromEnv: false } : undefined;
  if (flags.state === undefined && env.GBATCH_JOURNAL_URL) {
    if (!isDatabaseUrl(env.GBATCH_JOURNAL_URL)) throw new UsageError('GBATCH_JOURNAL_URL: expected a postgres:// URL');
    return { url: env.GBATCH_JOURNAL_URL, fromEnv: true };
  }
  return undefined;
}

/**
 * Opens the journal for a command. `withIds`: the positionals after the job are item ids (resolve,
 * retry). On a database the job must be named: it holds many.
 */
export async function openCommandJournal(
  flags: JournalFlags, positionals: readonly string[], options: { readonly: boolean; withIds: boolean },
): Promise<CommandJournal> {
  const server = journalUrl(flags);
  const state = flags.state ?? (flags.journal !== undefined && !isDatabaseUrl(flags.journal) ? flags.journal : undefined);
  if (!server) {
    const { file, ids } = options.withIds ? journalAndIds(state, positionals) : { file: locateJournal(state, positionals[0]), ids: [] };
    const store = SqliteJournalStore.open(file, { readonly: options.readonly });
    return { store, arg: { jobName: (await store.getJob())?.name, location: file, fromEnv: false }, ids };
  }
  const [job, ...ids] = positionals;
  if (job === undefined) throw new UsageError('name the job: a database journal holds many (e.g. `gbatch status <job> --journal postgres://...`)');
  const jobName = jobNameFor(job);
  const store = await openStore(server.url, { job: jobName, readonly: options.readonly });
  if (!(await store.getJob())) {
    await store.close();
    throw new UsageError(`${store.location}: no job '${jobName}' in this journal yet (has it run?)`);
  }
  return { store, arg: { jobName, location: store.location, fromEnv: server.fromEnv }, ids: options.withIds ? ids : [] };
}
