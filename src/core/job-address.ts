// Pure: how a job is addressed (a job file, a manifest, a name; an SQLite file, a --state file, a database with or
// without GBATCH_JOURNAL_URL; a `gbatch serve` batch), and the one place that turns it into the commands gbatch
// suggests. The facts that need the disk (is this file the job's default journal?) are found by the caller.
import { quoteArg } from './shell-text.js';

export type JournalPlace =
  | {
      adapter: 'sqlite';
      file: string;
      /** The file is state/<name>.db of the job as named (named, else name): the name alone finds it. */
      isDefault: boolean;
    }
  | {
      adapter: 'postgres';
      /**
       * The database URL without its password, with the query parameters that say how to connect: the driver takes
       * the password from PGPASSWORD or ~/.pgpass, or GBATCH_JOURNAL_URL names the whole URL (fromEnv).
       */
      url: string;
      /** GBATCH_JOURNAL_URL names it: commands need not repeat it. */
      fromEnv: boolean;
    };

export interface JobAddress {
  /** The job as the operator named it (a job file, a manifest, a job name). */
  named?: string;
  /** `named` alone finds this journal: no --state or --journal put it elsewhere. */
  namedFindsJournal?: boolean;
  /** The job's name in its journal. */
  name?: string;
  journal: JournalPlace;
  /** What `gbatch run` takes to run the job again: the job file or the one manifest its runs were started from. */
  source?: string;
  /** `source` alone finds this journal. */
  sourceFindsJournal?: boolean;
  /** The `gbatch serve` batch the job is: the server runs it, never `gbatch run`. */
  batch?: string;
}

/** The verbs of the commands that name a job's journal. */
export type JobVerb = 'status' | 'report' | 'resolve' | 'retry' | 'cancel' | 'forget';

/** A part of a command: flag text as given (`--failed`, `<id>`), or an id or path, quoted for a shell. */
export type CommandPart = string | { id: string };

/**
 * How a command names the job's journal: the job as the operator named it when that finds it; on a database the job
 * and (unless GBATCH_JOURNAL_URL names it) `--journal <url>`; else the job's name when the file is its default,
 * else `--state <file>`.
 */
export function journalArgOf(address: JobAddress): string {
  const { named, name, journal } = address;
  if (named !== undefined && address.namedFindsJournal) return quoteArg(named);
  const job = named ?? name;
  if (journal.adapter === 'postgres') {
    const url = journal.fromEnv ? '' : ` --journal ${quoteArg(journal.url)}`;
    return job === undefined ? url.trim() : `${quoteArg(job)}${url}`;
  }
  if (job !== undefined && journal.isDefault) return quoteArg(job);
  return `--state ${quoteArg(journal.file)}`;
}

/** `gbatch <verb> <journal> <rest...>`: ids and paths in `rest` are quoted here, flags pass as given. */
export function jobCommand(address: JobAddress, verb: JobVerb, ...rest: CommandPart[]): string {
  return commandNaming(journalArgOf(address), verb, ...rest);
}

/** jobCommand for a journal already named (journalArgOf's answer, as the callers that only hold it pass it). */
export function commandNaming(journalArg: string, verb: JobVerb, ...rest: CommandPart[]): string {
  const tail = rest.map((part) => (typeof part === 'string' ? part : quoteArg(part.id)));
  return ['gbatch', verb, journalArg, ...tail].join(' ');
}

/**
 * The command that runs the job again, from its job file or its one manifest (one argument: `gbatch run` takes one),
 * with the journal's flag when the source alone does not find it; null when there is none to paste: a serve batch
 * (its server runs it), or a job whose runs left no source.
 */
export function runCommandOf(address: JobAddress, ...flags: string[]): string | null {
  const { source, journal } = address;
  if (address.batch !== undefined || source === undefined || source === '') return null;
  const parts = ['gbatch', 'run', quoteArg(source)];
  if (!address.sourceFindsJournal) {
    if (journal.adapter === 'sqlite') parts.push('--state', quoteArg(journal.file));
    else if (!journal.fromEnv) parts.push('--journal', quoteArg(journal.url));
  }
  return [...parts, ...flags].join(' ');
}

/** The command that lists the job's rows as its source reads them (`gbatch plan`); null when it has none. */
export function planCommandOf(address: JobAddress, ...flags: string[]): string | null {
  const { source } = address;
  if (address.batch !== undefined || source === undefined || source === '') return null;
  return ['gbatch', 'plan', quoteArg(source), ...flags].join(' ');
}

/** Where a job whose runs cannot be started by hand carries on, in words, when runCommandOf has none. */
export function resumeWords(address: JobAddress): string {
  return address.batch !== undefined
    ? `the gbatch serve that holds batch ${quoteArg(address.batch)} carries it on`
    : 'run it again from its job file or manifest';
}
