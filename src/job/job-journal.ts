// The journal a job stands for, by the one rule `run` and every other command follow: --journal or
// --state given, else the job file's `journal` (or `state`) option, else GBATCH_JOURNAL_URL, else state/<name>.db.
import { existsSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { isDatabaseUrl } from '../journal/open-store.js';
import { isJobFile, readJobFile } from './job-file.js';
import { UsageError } from './options.js';

export interface JournalFlags {
  state?: string | undefined;
  journal?: string | undefined;
}

export interface JobJournal {
  name: string;
  /** An SQLite file's path, or a database URL. */
  location: string;
  onServer: boolean;
  /** The database URL came from GBATCH_JOURNAL_URL (advice need not repeat it). */
  fromEnv: boolean;
}

/** The URL in force: --journal (a path there means an SQLite file), else GBATCH_JOURNAL_URL. */
export function journalUrl(
  flags: JournalFlags,
  env: NodeJS.ProcessEnv = process.env,
): { url: string; fromEnv: boolean } | undefined {
  if (flags.journal !== undefined && flags.state !== undefined) {
    throw new UsageError('--journal and --state both name the journal: give one');
  }
  if (flags.journal !== undefined)
    return isDatabaseUrl(flags.journal) ? { url: flags.journal, fromEnv: false } : undefined;
  if (flags.state === undefined && env.GBATCH_JOURNAL_URL) {
    if (!isDatabaseUrl(env.GBATCH_JOURNAL_URL)) throw new UsageError('GBATCH_JOURNAL_URL: expected a postgres:// URL');
    return { url: env.GBATCH_JOURNAL_URL, fromEnv: true };
  }
  return undefined;
}

/** A --journal or --state on the command line overrides the job file's choice as a whole. */
export function journalFlagsOver(fromJob: JournalFlags, cli: JournalFlags): JournalFlags {
  const given = cli.journal !== undefined || cli.state !== undefined ? cli : fromJob;
  return { journal: given.journal, state: given.state };
}

/** Where the journal of the job `name` is, under the flags in force. */
export function journalLocation(flags: JournalFlags, name: string, env: NodeJS.ProcessEnv): Omit<JobJournal, 'name'> {
  const server = journalUrl(flags, env);
  if (server) return { location: server.url, onServer: true, fromEnv: server.fromEnv };
  return { location: flags.journal ?? flags.state ?? join('state', `${name}.db`), onServer: false, fromEnv: false };
}

/**
 * The journal of a job named by a job file, a manifest or a job name, as `run` of it uses. A job file
 * that does not exist is named by its file name; one that cannot be read is a usage error.
 */
export function jobJournal(job: string, cli: JournalFlags, env: NodeJS.ProcessEnv = process.env): JobJournal {
  const file = isJobFile(job) && existsSync(job) ? readJobFile(job) : undefined;
  const name = file?.name ?? basename(job, extname(job)).replace(/[^A-Za-z0-9._-]/g, '_');
  return { name, ...journalLocation(journalFlagsOver(file?.options ?? {}, cli), name, env) };
}
