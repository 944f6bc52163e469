// A write that waits out SQLite's busy timeout (a runner stopped in mid-commit holds the write lock) leaves the
// journal as its own JournalWriteBusyError, whichever write it was: callers never read SQLite's codes.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { knownErrorExit } from '../../../src/api/error-exit.js';
import { JournalWriteBusyError } from '../../../src/journal/index.js';
import { openStore } from '../../../src/journal/open-store.js';
import { ingest, row } from '../conformance/harness.js';
import { openSqliteFile } from '../../helpers/journal-raw.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';

const temp = useTempDir();
const KNOB = 'GBATCH_SQLITE_BUSY_TIMEOUT_MS';
let before: string | undefined;
beforeEach(() => {
  before = process.env[KNOB];
  process.env[KNOB] = '50';
});
afterEach(() => {
  if (before === undefined) delete process.env[KNOB];
  else process.env[KNOB] = before;
});

test('every kind of write refused on a held write lock is JournalWriteBusyError, exit 75, nothing changed', async () => {
  const created = temp.open('job.db');
  const file = created.file;
  created.close();
  const store = await openStore(file, { job: 'busy' });
  await store.saveJob({ name: 'busy', manifest: 'm.csv', options: {} });
  await ingest(store, [row('a', 1), row('b', 2)]);
  const writer = openSqliteFile(file);
  writer.exec('BEGIN IMMEDIATE');
  try {
    const writes = [
      () => store.setJobCancel('stop'),
      () => store.applyTransitions([{ id: 'a', event: 'submit', patch: { attempts: 1 } }]),
      () => store.decideAndApply(async () => ({ changes: [], result: undefined })),
    ];
    for (const write of writes) {
      const refusal = await write().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refusal).toBeInstanceOf(JournalWriteBusyError);
      expect((refusal as Error).message).toBe(
        `${file}: the journal stayed busy (a runner in mid-write holds it); nothing was changed; try again`,
      );
      expect(knownErrorExit(refusal)?.exitCode).toBe(75);
    }
  } finally {
    writer.exec('ROLLBACK');
    writer.close();
  }
  expect(await store.counts()).toMatchObject({ pending: 2, submitting: 0 });
  expect(await store.jobCancel()).toBeUndefined();
  await store.close();
});
