// Opening a journal's SQLite file so that several processes may open (and create) it at the same
// instant: the busy timeout is set before anything takes a lock, and switching to WAL, which needs the
// file to itself for a moment, is retried while another opener holds it.
import Database from 'better-sqlite3';
import { positiveKnob } from '../../core/test-knob.js';
import { keepHandles } from './kept-handles.js';

/**
 * How long a connection waits for another's write lock. GBATCH_SQLITE_BUSY_TIMEOUT_MS lets a test make it
 * long, so that a wait where none is allowed outlasts the test instead of passing within a margin.
 */
function busyTimeoutMs(): number {
  return positiveKnob(process.env, 'GBATCH_SQLITE_BUSY_TIMEOUT_MS', 5000);
}
/**
 * A checkpoint copies every page changed since the last one into the database file: the fewer
 * checkpoints, the more versions of a hot page (an item row's, rewritten by each transition) go to the
 * file once instead of each (issue 11). A WAL of up to ~33 MB (8,000 pages of 4 KB, 16,000 of 2 KB),
 * reused from its start after each checkpoint. SQLite's default is 1,000 pages.
 */
const WAL_AUTOCHECKPOINT_BYTES = 8000 * 4096;
/**
 * The page size of a new journal (an existing one keeps its own). Every commit writes each page it
 * touched whole: the tails of the logs it appends to, their parents, the pages of the rows it changed.
 * Half-size pages halve those bytes for a deeper tree (issue 11: 2 KB pages wrote ~5-15 % fewer bytes
 * per row than 4 KB in alternated runs, at 5 and at 100 ms of gateway latency).
 */
const NEW_PAGE_SIZE = 2048;

/** SQLite's "another connection holds the lock" (after the busy timeout, for a write). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY_SNAPSHOT';
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs `step`, retrying it while SQLite says the database is busy, for up to the busy timeout. */
export function whileBusy<T>(step: () => T): T {
  const until = Date.now() + busyTimeoutMs();
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      return step();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= until) throw err;
      pause(wait);
    }
  }
}

export function openDatabase(file: string, options: { readonly: boolean; sync: 'full' | 'off' }): Database.Database {
  const db = keepHandles(new Database(file, { readonly: options.readonly, fileMustExist: options.readonly }));
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs()}`);
    if (!options.readonly) {
      // Takes effect only on a file with no page yet: before WAL mode, which fixes the size.
      db.pragma(`page_size = ${NEW_PAGE_SIZE}`);
      whileBusy(() => db.pragma('journal_mode = WAL'));
      db.pragma(`synchronous = ${options.sync === 'off' ? 'OFF' : 'FULL'}`);
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      db.pragma(`wal_autocheckpoint = ${Math.round(WAL_AUTOCHECKPOINT_BYTES / pageSize)}`);
    }
    db.pragma('foreign_keys = ON');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * SQLite opens a file it cannot write read-only without a word: find out at open, not at the first write.
 * The probe does not wait for the write lock: a holder (a live runner, stopped mid-commit perhaps) proves
 * the file writable, and who holds the journal is for the runner lock to judge, at once.
 */
export function probeWritable(db: Database.Database): void {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return;
    throw err;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
  try {
    db.pragma(`user_version = ${db.pragma('user_version', { simple: true }) as number}`);
  } finally {
    db.exec('ROLLBACK');
  }
}
