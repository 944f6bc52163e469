// The journal's disk failing under a run (full, or an I/O error) is the machine's doing, not a bug: the
// run stops with one line naming the cause, and exit 75 (free space, run again), never exit 70.

const CAUSES: ReadonlyArray<[RegExp, string]> = [
  [/^SQLITE_FULL$/, 'the disk is full'],
  [/^SQLITE_IOERR/, 'the disk reported an I/O error'],
];

export interface JournalStorageFailure {
  code: string;
  words: string;
}

/** The SQLite storage failure behind `err` (or its causes), if that is what it is. */
export function journalStorageFailure(err: unknown): JournalStorageFailure | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const cause = CAUSES.find(([pattern]) => pattern.test(code));
      if (cause) return { code, words: cause[1] };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function journalStorageLine(failure: JournalStorageFailure): string {
  return (
    `the journal could not be written: ${failure.words} (${failure.code}); nothing more was sent. ` +
    'Free space (or fix the disk), then run again: a row whose answer could not be recorded becomes uncertain and waits for `gbatch resolve`.'
  );
}
