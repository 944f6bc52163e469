// The one place tests reach past the journal interface: a journal's database handle (to plant rows, take a
// schema back, or read what was written), and a synchronous view of an SQLite journal for the tests that
// drive its transitions step by step. Nothing else in test/ knows an adapter's internals or writes its tables.
// The SQLite adapter's parts are private: an element access (`store['db']`) is TypeScript's way past `private`,
// used here only.
import DatabaseDriver from 'better-sqlite3';
import type Database from 'better-sqlite3';
import type { ItemState } from '../../src/core/states.js';
import type { JobFileBudget } from '../../src/core/job-budget.js';
import type { Change, JobRecord, Move, Spend } from '../../src/journal/change.js';
import type { Item, ItemPatch } from '../../src/journal/item.js';
import type {
  EventLogRecord,
  ItemEventRecord,
  ItemFilter,
  JobCancel,
  JournalRescue,
  JournalStore,
} from '../../src/journal/store.js';
import { PostgresJournalStore } from '../../src/journal/postgres/postgres-store.js';
import { SqliteJournal, type SqliteOpenOptions } from '../../src/journal/sqlite/journal.js';
import { keepHandles } from '../../src/journal/sqlite/kept-handles.js';
import { IngestSession } from '../../src/journal/sqlite/ingest-session.js';
import { recountItemSums } from '../../src/journal/sqlite/item-sums.js';
import { eventLogRecords, itemEvents } from '../../src/journal/sqlite/queries.js';
import * as history from '../../src/journal/sqlite/history.js';
import { saveCopy, rescueReport } from '../../src/journal/sqlite/rescue.js';
import { compareIdentity, fileIdentity } from '../../src/journal/sqlite/file-watch.js';
import * as runs from '../../src/journal/sqlite/runs.js';
import type { RunEnd, RunRecord } from '../../src/journal/run-record.js';
import type { ResultRow } from '../../src/journal/result-row.js';
import type { RunnerLock } from '../../src/journal/sqlite/lock.js';
import type { ResultRows } from '../../src/journal/sqlite/result-rows.js';
import type { PgSchema } from './postgres.js';

export { IngestSession };
export type { ResultRows };
export type SyncJournalOptions = SqliteOpenOptions;

/** The SQLite adapter opened at `file`, as the journal interface. */
export function openSqliteStore(file: string, options: SqliteOpenOptions = {}): JournalStore {
  return SqliteJournal.open(file, options);
}

/** An SQLite journal's calls answered at once (the driver is synchronous), and its lock. */
export class SyncJournal {
  private constructor(readonly store: SqliteJournal) {}

  static open(file: string, options: SqliteOpenOptions = {}): SyncJournal {
    return new SyncJournal(SqliteJournal.open(file, options));
  }

  get file(): string {
    return this.store['file'];
  }

  get db(): Database.Database {
    return this.store['db'];
  }

  get lock(): RunnerLock {
    return this.store['lock'];
  }

  get results(): ResultRows {
    return this.store['results'];
  }

  get deferredCommitCount(): number {
    return this.store['deferredCommitCount'];
  }

  now(): number {
    return this.store.now();
  }

  currentSpend(): Spend {
    return this.store['currentSpend']();
  }

  close(): void {
    this.store['closeNow']();
  }

  syncDeferred(): void {
    this.store['syncDeferredNow']();
  }

  fence(reason: Error): void {
    this.store.fence(reason);
  }

  getJob(): JobRecord | undefined {
    return this.store['jobRow'].read();
  }

  saveJob(job: {
    name: string;
    manifest: string;
    options: Record<string, unknown>;
    budgetUsd?: number | undefined;
    jobFileBudget?: JobFileBudget | undefined;
  }): void {
    this.store['jobRow'].write(job, this.store.now());
  }

  jobCancel(): JobCancel | undefined {
    return this.store['jobRow'].cancel();
  }

  setJobCancel(reason: string | undefined): JobCancel | undefined {
    return this.store['jobRow'].setCancel(reason, this.store.now());
  }

  get(id: string): Item | undefined {
    return this.store['item'](id);
  }

  counts(): Record<ItemState, number> {
    return this.store['stateCounts']();
  }

  spend(): Spend {
    return this.store['currentSpend']();
  }

  list(states: readonly ItemState[], limit = -1, afterSeq = 0): Item[] {
    return this.store['reads'].list(states, limit, afterSeq);
  }

  page(filter: Omit<ItemFilter, 'mine'>, afterSeq: number, pageSize: number): Item[] {
    return this.store['reads'].page(filter, afterSeq, pageSize);
  }

  *iterate(filter: Omit<ItemFilter, 'mine'> = {}, pageSize = 2000): Generator<Item> {
    for (let after = 0; ;) {
      const rows = this.page(filter, after, pageSize);
      if (rows.length === 0) return;
      yield* rows;
      after = rows[rows.length - 1]!.seq;
    }
  }

  apply(changes: readonly Change[]): Item[] {
    return this.store['applyNow'](changes);
  }

  applyTransitions(changes: readonly Change[], options: { deferSync?: boolean } = {}): Move[] {
    return this.store['transitionsNow'](changes, options);
  }

  markStored(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): void {
    this.store['markStoredNow'](ids, outputPath, detail);
  }

  annotate(id: string, patch: ItemPatch, note: string): void {
    this.store['annotateNow'](id, patch, note);
  }

  forgetUncommitted(): void {
    this.store['forgetUncommitted']();
  }

  events(itemId: string): ItemEventRecord[] {
    return itemEvents(this.store['db'], itemId);
  }

  eventLogPage(afterSeq: number, limit: number): EventLogRecord[] {
    return eventLogRecords(this.store['db'], afterSeq, limit);
  }
}

/** Opens an SQLite journal for step-by-step tests (see SyncJournal). */
export function openSyncJournal(file: string, options: SqliteOpenOptions = {}): SyncJournal {
  return SyncJournal.open(file, options);
}

/**
 * Builds an SQLite journal's summaries again from its rows: after a test planted rows by plain SQL (an INSERT is not
 * summed by a trigger; the ingest adds its own rows' part).
 */
export function recountSummaries(journal: SyncJournal | JournalStore): void {
  recountItemSums(rawDb(journal));
}

/** The database handle behind a journal (SQLite: its better-sqlite3 connection). */
export function rawDb(journal: SyncJournal | JournalStore): Database.Database {
  if (journal instanceof SyncJournal) return journal.store['db'];
  if (journal instanceof SqliteJournal) return journal['db'];
  throw new Error(`rawDb: no raw handle for the ${journal.adapter} adapter here`);
}

/**
 * The journal's runs table, read and written at once (what recordRunStart/End and lastRun do through the interface).
 */
export function recordRunStart(journal: SyncJournal): number {
  return runs.recordRunStart(journal.db, journal.now());
}

export function recordRunEnd(journal: SyncJournal, id: number, end: RunEnd): void {
  runs.recordRunEnd(journal.db, journal.now(), id, end);
}

export function lastRun(journal: SyncJournal): RunRecord | undefined {
  return runs.lastRun(journal.db);
}

/** The event log's questions (store.abandonedWhileUncertain, store.lastSubmitTimes), answered at once. */
export function abandonedWhileUncertain(journal: SyncJournal, failedIds: Iterable<string>): Set<string> {
  return history.abandonedWhileUncertain(journal.db, failedIds);
}

export function lastSubmitTimes(journal: SyncJournal, ids: readonly string[]): Map<string, number> {
  return history.lastSubmitTimes(journal.db, ids);
}

/** What store.rescue() does once the file is lost, at a given time: the copy, and what it holds. */
export function saveJournalCopy(journal: SyncJournal, path: string, now: number): JournalRescue['copy'] {
  return saveCopy(journal.db, path, now);
}

export function rescueOf(journal: SyncJournal, copy: JournalRescue['copy']): JournalRescue {
  return rescueReport(journal.db, copy);
}

export { compareIdentity, fileIdentity };

/**
 * Calls `each` as each transaction of transitions begins, before its writes (to see the connection's settings then).
 */
export function beforeEachTransition(journal: SyncJournal, each: () => void): void {
  const target = journal.store as unknown as { runTransitions(changes: readonly Change[]): Move[] };
  const run = target.runTransitions.bind(target);
  target.runTransitions = (changes) => {
    each();
    return run(changes);
  };
}

/** An SQLite store over no file whose rows for results.jsonl are `results`: a test's stand-in for the table. */
export function storeOverResults(results: {
  iterate(afterSeq: number, limit: number): IterableIterator<ResultRow>;
  firstOpenSeq(): number | undefined;
}): JournalStore {
  const store = Object.create(SqliteJournal.prototype) as SqliteJournal;
  Object.defineProperty(store, 'results', { value: results });
  return store;
}

/** The SQLite journal's schema version (its migrations' count). */
export { SCHEMA_VERSION } from '../../src/journal/sqlite/schema.js';

/**
 * An SQLite journal's file opened with the driver itself, as another process (or a crashed runner's leftovers) would
 * hold it.
 */
export function openSqliteFile(path: string, options?: Database.Options): Database.Database {
  // Kept, as the adapter keeps its own: under Node 24.19+ a collected better-sqlite3 object may abort the process.
  return keepHandles(new DatabaseDriver(path, options));
}

/** A runner record as another process would have left it (the conformance suite's plantRunner). */
export interface PlantedRunner {
  pid: number;
  host: string;
  heartbeatAt: number;
  processStart?: string | null;
}

/** Makes the SQLite journal at `file` name `runner` as its lock holder, replacing whoever it named. */
export function plantSqliteRunner(file: string, { pid, host, heartbeatAt, processStart = null }: PlantedRunner): void {
  const journal = openSyncJournal(file);
  try {
    rawDb(journal)
      .prepare(
        `INSERT OR REPLACE INTO runner_lock (id, pid, host, token, started_at, heartbeat_at, process_start)
        VALUES (1, ?, ?, 'planted', ?, ?, ?)`,
      )
      .run(pid, host, heartbeatAt, heartbeatAt, processStart);
  } finally {
    journal.close();
  }
}

/** Makes `runner` the only runner of the PostgreSQL job `job` in `db`'s schema, its lease ending at its heartbeat. */
export async function plantPostgresRunner(
  db: Pick<PgSchema, 'query'>,
  job: string,
  { pid, host, heartbeatAt, processStart = null }: PlantedRunner,
): Promise<void> {
  await db.query('DELETE FROM runners WHERE job_id = (SELECT id FROM jobs WHERE name = $1)', [job]);
  await db.query(
    `INSERT INTO runners (job_id, runner_id, pid, host, process_start, started_at, heartbeat_at, lease_until)
    SELECT id, gen_random_uuid(), $2, $3, $4, $5, $5, $5 FROM jobs WHERE name = $1`,
    [job, pid, host, processStart, heartbeatAt],
  );
}

/**
 * The PostgreSQL adapter's parts its own unit tests drive directly: the one-statement batch apply, the judgement of a
 * lost connection, the pool, the migrations and the URL redaction. No interface method offers them.
 */
export { applyBatch } from '../../src/journal/postgres/batch-apply.js';
export { followedConnectionLoss, isConnectionLoss, retryOutage } from '../../src/journal/postgres/connection-loss.js';
export { connectPool } from '../../src/journal/postgres/pool.js';
export {
  migrate as migratePostgres,
  redactDatabaseUrl,
  SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION,
} from '../../src/journal/postgres/postgres-store.js';
export { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/journal/postgres/schema.js';
export { FUNCTIONS as POSTGRES_FUNCTIONS } from '../../src/journal/postgres/schema-steps.js';

/** What applyBatch takes of a PostgreSQL store: its pool, its job's id and its runner's id. */
export function postgresInternals(store: JournalStore): {
  pool: { query: (...a: unknown[]) => Promise<unknown> };
  jobId: number;
  runnerId: string;
} {
  if (!(store instanceof PostgresJournalStore)) throw new Error(`postgresInternals: a ${store.adapter} store`);
  const internals = store as unknown as {
    pool: { query: (...a: unknown[]) => Promise<unknown> };
    jobId: number;
    runnerMembership: { runnerId: string };
  };
  return { pool: internals.pool, jobId: internals.jobId, runnerId: internals.runnerMembership.runnerId };
}
