// Every job a journal source holds, for a view of them all (`gbatch ui`): the jobs of a PostgreSQL journal,
// or one job per SQLite journal file in a directory (state/ by default).
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isDatabaseUrl } from './open-store.js';

export interface JournalJob {
  /** How a URL names the job: its name in a database, its file's name (without .db) in a directory. */
  key: string;
  /** The SQLite file, or the database URL. */
  location: string;
  /** The job's name in a database (undefined: the file's one job). */
  job: string | undefined;
}

export async function journalJobs(source: string): Promise<JournalJob[]> {
  if (isDatabaseUrl(source)) {
    const { jobNames } = await import('./postgres/job-names.js');
    return (await jobNames(source)).map((name) => ({ key: name, location: source, job: name }));
  }
  return readdirSync(source)
    .filter((file) => file.endsWith('.db'))
    .map((file) => join(source, file))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true)
    .map((path) => ({ key: basename(path, '.db'), location: path, job: undefined }));
}
