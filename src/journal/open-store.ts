// Opens the journal a location names: a postgres:// URL is the PostgreSQL adapter (loaded only then, so
// an SQLite user never loads its driver); anything else is a path to an SQLite file.
import type { OpenStoreOptions } from './open-options.js';
import type { JournalHistory } from './settled-costs.js';
import type { JournalQueries, JournalStore } from './store.js';
import { SqliteJournal } from './sqlite/journal.js';

export type { OpenStoreOptions } from './open-options.js';

export function isDatabaseUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

export async function openStore(location: string, options: OpenStoreOptions): Promise<JournalStore> {
  if (isDatabaseUrl(location)) {
    const { PostgresJournalStore } = await import('./postgres/postgres-store.js');
    return PostgresJournalStore.open(location, options);
  }
  const { job: _job, poolSize: _poolSize, ...file } = options;
  return openJournalFile(location, file);
}

/**
 * Opens the journal read-only, for what reports and views read: never created nor migrated (a job or a
 * schema that is not there reads as empty on a database).
 */
export async function openQueries(
  location: string,
  options: Pick<OpenStoreOptions, 'job' | 'clock'>,
): Promise<JournalQueries> {
  if (isDatabaseUrl(location)) {
    const { PostgresJournalStore } = await import('./postgres/postgres-store.js');
    return PostgresJournalStore.open(location, { ...options, readonly: true });
  }
  return SqliteJournal.open(location, { ...(options.clock ? { clock: options.clock } : {}), readonly: true });
}

/**
 * Brings a database's journal schema to this gbatch's version (`gbatch journal migrate`): its driver loaded only then.
 */
export async function migrateDatabase(url: string): Promise<{ location: string; version: number; applied: number }> {
  const { migrateDatabase: migrate } = await import('./postgres/migrate-database.js');
  return migrate(url);
}

/** Opens (or creates) the journal file at `path`: a command given a file, which names no job. */
export function openJournalFile(
  path: string,
  options: Omit<OpenStoreOptions, 'job'> & { readonly?: boolean } = {},
): JournalStore {
  const { clock, durability, flushFile, readonly } = options;
  return SqliteJournal.open(path, {
    ...(clock ? { clock } : {}),
    ...(readonly ? { readonly } : {}),
    sync: durability === 'relaxed' ? 'off' : 'full',
    ...(flushFile ? { syncWal: flushFile } : {}),
  });
}

/**
 * The journal's cost history to merge into (`gbatch history import`): an SQLite file is created or migrated; a
 * database is migrated, and its history (the database's, not a job's) written without opening any job.
 */
export async function openHistory(location: string): Promise<JournalHistory & { close(): Promise<void> }> {
  if (isDatabaseUrl(location)) {
    await migrateDatabase(location);
    const { PostgresJournalStore } = await import('./postgres/postgres-store.js');
    return PostgresJournalStore.open(location, { job: '', readonly: true });
  }
  return openJournalFile(location);
}
