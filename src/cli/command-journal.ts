// Which journal a command (status, report, resolve, retry, cancel) opens: the one `run` of the named job
// uses (job-journal.ts), or the file --state names; with neither, the only one in state/.
import { existsSync, readdirSync } from 'node:fs';
import { openJournalFile, openQueries, openStore } from '../journal/open-store.js';
import type { JournalQueries, JournalStore } from '../journal/index.js';
import { finalBatchOf, finalBatchRefusal } from '../core/final-batch.js';
import { quoteArg } from '../core/shell-text.js';
import { jobJournal, journalUrl, type JournalFlags } from '../job/job-journal.js';
import { locateJournal } from '../job/locate-journal.js';
import { jobAddress } from '../job/advice.js';
import type { JobAddress } from '../core/job-address.js';
import { UsageError } from '../job/options.js';
import { commandLocation } from '../journal/database-url.js';

export { journalUrl, type JournalFlags } from '../job/job-journal.js';

/** A journal a command opened: one it may change (JournalStore), or only read (JournalQueries: status, report). */
/** The --journal option of the commands that read or change a job's journal. */
export const JOURNAL_OPTION = {
  type: 'string',
  help: 'the journal on a database: a postgres:// URL (default: GBATCH_JOURNAL_URL); a path means an SQLite file, as --state',
} as const;

/** --state and --journal of a command that changes a job: the journal is the job's own. */
export const JOB_JOURNAL_OPTIONS = {
  state: { type: 'string', help: 'the SQLite journal (default: the journal of <job>, state/<job>.db)' },
  journal: JOURNAL_OPTION,
} as const;

/** --state and --journal of a command that only reads: without a job, the only journal in state/ will do. */
export const READ_JOURNAL_OPTIONS = {
  state: { type: 'string', help: 'the SQLite journal (default: state/<job>.db, or the only journal in state/)' },
  journal: JOURNAL_OPTION,
} as const;

export interface CommandJournal<Journal extends JournalQueries = JournalStore> {
  store: Journal;
  /**
   * How advice names the job's journal in a command to paste; `named`: the job as the operator
   * named it, which finds this journal by itself.
   */
  arg: { jobName: string | undefined; location: string; fromEnv: boolean; named?: string };
  /** The job file or manifest the operator named, when it alone finds this journal (what `run` takes). */
  source?: string;
  ids: string[];
}

export interface OpenOptions {
  readonly: boolean;
  /** The positionals after the job are item ids (resolve, retry); with --state every positional is an id. */
  withIds: boolean;
  /** The command changes the journal: without a job or a journal named, it refuses rather than pick the only one. */
  needsJob?: { command: string };
}

export async function openCommandJournal(
  flags: JournalFlags,
  positionals: readonly string[],
  options: OpenOptions & { readonly: true },
): Promise<CommandJournal<JournalQueries>>;
export async function openCommandJournal(
  flags: JournalFlags,
  positionals: readonly string[],
  options: OpenOptions & { readonly: false },
): Promise<CommandJournal>;
export async function openCommandJournal(
  flags: JournalFlags,
  positionals: readonly string[],
  options: OpenOptions,
): Promise<CommandJournal<JournalQueries>> {
  const opened = await openNamed(flags, positionals, options);
  if (!options.readonly) {
    // A final `gbatch serve` batch never changes: no command that would change it starts.
    const final = finalBatchOf((await opened.store.getJob())?.options);
    if (final) {
      await opened.store.close();
      throw new UsageError(`${opened.store.location}: ${finalBatchRefusal(final)}`);
    }
  }
  return opened;
}

/** The SQLite file --state names, or --journal when it names a path rather than a server. */
function statePathOf(flags: JournalFlags): string | undefined {
  return flags.state ?? (flags.journal !== undefined && !journalUrl(flags) ? flags.journal : undefined);
}

/**
 * The item ids a command that takes them (forget, resolve, retry) was given: every positional when an SQLite file
 * is named, else those after the job.
 */
export function itemIdsOf(flags: JournalFlags, positionals: readonly string[]): string[] {
  return statePathOf(flags) !== undefined ? [...positionals] : positionals.slice(1);
}

async function openNamed(
  flags: JournalFlags,
  positionals: readonly string[],
  options: OpenOptions,
): Promise<CommandJournal<JournalQueries>> {
  const server = journalUrl(flags);
  const statePath = statePathOf(flags);
  const idsOnly = options.withIds && statePath !== undefined;
  const job: string | undefined = idsOnly ? undefined : positionals[0];
  const ids = options.withIds ? itemIdsOf(flags, positionals) : [];
  if (job === undefined) {
    if (server) {
      throw new UsageError(
        'name the job: a database journal holds many (e.g. `gbatch status <job> --journal postgres://...`)',
      );
    }
    if (statePath === undefined && options.needsJob) throw new UsageError(askForJob(options.needsJob.command));
    const file = locateJournal(statePath, undefined);
    return openSqlite(file, undefined, ids, options.readonly);
  }
  const found = jobJournal(job, flags);
  // Named as given: the job file (or job name) leads to this journal unless a flag moved it.
  const named = flags.state === undefined && flags.journal === undefined ? quoteArg(job) : undefined;
  if (!found.onServer) {
    if (!existsSync(found.location)) {
      if (statePath !== undefined) throw new UsageError(`${found.location}: no such journal`);
      const hint = options.withIds ? ' (the first argument names the job, then the item ids: `<job> <item-id>`)' : '';
      throw new UsageError(`${found.location}: no journal for ${job} yet (has it run?); or pass --state${hint}`);
    }
    return { ...(await openSqlite(found.location, named, ids, options.readonly)), ...(named ? { source: job } : {}) };
  }
  const store = options.readonly
    ? await openQueries(found.location, { job: found.name })
    : await openStore(found.location, { job: found.name });
  if (!(await store.getJob())) {
    await store.close();
    throw new UsageError(`${store.location}: no job '${found.name}' in this journal yet (has it run?)`);
  }
  return {
    store,
    arg: {
      jobName: found.name,
      location: commandLocation(found.location),
      fromEnv: found.fromEnv,
      ...(named ? { named } : {}),
    },
    ids,
    ...(named ? { source: job } : {}),
  };
}

async function openSqlite(
  file: string,
  named: string | undefined,
  ids: string[],
  readonly: boolean,
): Promise<CommandJournal> {
  const store = openJournalFile(file, { readonly });
  return {
    store,
    arg: { jobName: (await store.getJob())?.name, location: file, fromEnv: false, ...(named ? { named } : {}) },
    ids,
  };
}

/** The refusal of a changing command given no job: it names the journals it would have had to choose from. */
function askForJob(command: string): string {
  const found = existsSync('state')
    ? readdirSync('state')
        .filter((f) => f.endsWith('.db'))
        .map((f) => `state/${f}`)
    : [];
  const where = found.length === 0 ? 'no journal in state/' : `journals in state/: ${found.join(', ')}`;
  return `name the job: \`gbatch ${command} <job> ...\` (the job file, e.g. jobs/<name>.json), or --state <file.db> (${where})`;
}

/** How the journal a command opened is addressed, for the commands it suggests (core/job-address.ts). */
export async function commandAddress(opened: CommandJournal<JournalQueries>): Promise<JobAddress> {
  const { arg, store } = opened;
  return jobAddress({
    file: arg.location,
    name: arg.jobName,
    server: store.adapter === 'postgres' ? { fromEnv: arg.fromEnv } : undefined,
    ...(arg.named !== undefined && opened.source !== undefined
      ? { named: opened.source, namedFindsJournal: true }
      : {}),
    options: (await store.getJob())?.options,
  });
}
