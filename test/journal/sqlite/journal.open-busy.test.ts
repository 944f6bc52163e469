// A runner stopped (SIGSTOP) in the middle of a commit keeps SQLite's write lock. Opening its journal must
// not wait on that lock: the runner lock decides at once that the journal is taken, and a reader is
// never held up. Another connection holding the write lock stands in for the stopped runner here. The busy
// timeout is made a minute long: an open or a lock that waited on the write lock would outlast the test.
import { openSqliteFile } from '../../helpers/journal-raw.js';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { JournalBusyError } from '../../../src/journal/index.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';

const temp = useTempDir();
const KNOB = 'GBATCH_SQLITE_BUSY_TIMEOUT_MS';
let before: string | undefined;
beforeEach(() => {
  before = process.env[KNOB];
  process.env[KNOB] = String(60_000);
});
afterEach(() => {
  if (before === undefined) delete process.env[KNOB];
  else process.env[KNOB] = before;
});

test('a journal whose write lock is held opens without waiting on it, and a live holder is refused as busy at once', () => {
  const first = temp.open('job.db');
  const file = first.file;
  first.lock.acquire(file); // this process is the live runner
  const writer = openSqliteFile(file);
  writer.exec('BEGIN IMMEDIATE'); // ... stopped mid-commit
  try {
    const second = temp.open('job.db');
    try {
      expect(() => second.lock.acquire(file)).toThrow(JournalBusyError);
    } finally {
      second.close();
    }
  } finally {
    writer.exec('ROLLBACK');
    writer.close();
    first.lock.release();
    first.close();
  }
}, 10_000);
