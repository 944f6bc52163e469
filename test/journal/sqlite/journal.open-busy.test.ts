// A runner stopped (SIGSTOP) in the middle of a commit keeps SQLite's write lock. Opening its journal must
// not wait on that lock: the runner lock decides at once that the journal is taken, and a reader is
// never held up. Another connection holding the write lock stands in for the stopped runner here.
import { openSqliteFile } from '../../helpers/journal-raw.js';
import { expect, test } from 'vitest';
import { JournalBusyError } from '../../../src/journal/index.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';

const temp = useTempDir();

test('a journal whose write lock is held opens at once, and a live holder is refused as busy, not after a 5 s wait', () => {
  const first = temp.open('job.db');
  const file = first.file;
  first.lock.acquire(file); // this process is the live runner
  const writer = openSqliteFile(file);
  writer.exec('BEGIN IMMEDIATE'); // ... stopped mid-commit
  try {
    const started = performance.now();
    const second = temp.open('job.db');
    try {
      expect(() => second.lock.acquire(file)).toThrow(JournalBusyError);
    } finally {
      second.close();
    }
    expect(performance.now() - started).toBeLessThan(1000);
  } finally {
    writer.exec('ROLLBACK');
    writer.close();
    first.lock.release();
    first.close();
  }
});
