// Opening a journal's SQLite file so that several processes may open (and create) it at the same
// instant: the busy timeout is set before anything takes a lock, and switching to WAL, which needs the
// file to itself for a moment, is retried while another opener holds it.
import Database from 'better-sqlite3';

const BUSY_TIMEOUT_MS = 5000;

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY_SNAPSHOT';
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs `step`, retrying it while SQLite says the database is busy, for up to BUSY_TIMEOUT_MS. */
export function whileBusy<T>(step: () => T): T {
  const until = Date.now() + BUSY_TIMEOUT_MS;
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
  const db = new Database(file, { readonly: options.readonly, fileMustExist: options.readonly });
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!options.readonly) {
      whileBusy(() => db.pragma('journal_mode = WAL'));
      db.pragma(`synchronous = ${options.sync === 'off' ? 'OFF' : 'FULL'}`);
    }
    db.pragma('foreign_keys = ON');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
