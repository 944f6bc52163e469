// Every job a journal source holds, read-only, for a view of them all (`gbatch ui`): the jobs of a
// PostgreSQL journal (through one pool), the one job of an SQLite file, or one job per SQLite file of a
// folder (state/ by default). A new job shows on the next listing.
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isDatabaseUrl, openQueries } from './open-store.js';
import type { JournalQueries } from './store.js';
import { commandLocation } from './database-url.js';

export interface JournalJob {
  /** How a URL names the job: its name in a database, its file's name (without .db) in a folder. */
  key: string;
  /** The SQLite file, or the database (without its password). */
  location: string;
  /** How a command to paste names a database: its URL without the password, with how to connect (its query). */
  commandLocation?: string;
}

export interface JournalReader {
  jobs(): Promise<JournalJob[]>;
  /** The job's read-only queries; the caller closes them (before closing the reader). */
  queries(job: JournalJob): Promise<JournalQueries>;
  close(): Promise<void>;
}

/** `source`: a postgres:// URL, an SQLite file, or a folder of SQLite files (throws when it is none of them). */
export async function openJournalReader(source: string): Promise<JournalReader> {
  if (isDatabaseUrl(source)) {
    const { PgJobsReader } = await import('./postgres/jobs-reader.js');
    const reader = await PgJobsReader.open(source);
    return {
      jobs: async () =>
        (await reader.jobNames()).map((name) => ({
          key: name,
          location: reader.location,
          commandLocation: commandLocation(source),
        })),
      queries: (job) => reader.queries(job.key),
      close: () => reader.close(),
    };
  }
  const single = statSync(source).isFile();
  return {
    jobs: async () =>
      single
        ? [{ key: basename(source, '.db'), location: source }]
        : readdirSync(source)
            .filter((file) => file.endsWith('.db'))
            .map((file) => join(source, file))
            .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true)
            .map((path) => ({ key: basename(path, '.db'), location: path })),
    queries: (job) => openQueries(job.location, { job: job.key }),
    close: async () => {},
  };
}
