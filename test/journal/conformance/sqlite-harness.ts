// The conformance harness of the SQLite adapter: a fresh journal file per test.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openQueries, openStore, type JournalStore } from '../../../src/journal/index.js';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../../../src/journal/sqlite/schema.js';
import type { Harness } from './harness.js';
import { plantSqliteRunner } from '../../helpers/journal-raw.js';

export function useSqliteHarness(): Harness {
  let dir: string | undefined;
  let opened: JournalStore[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gbatch-conformance-'));
  });
  afterEach(async () => {
    for (const store of opened) await store.close();
    opened = [];
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const file = (): string => join(dir!, 'job.db');
  return {
    adapter: 'sqlite',
    jobName: () => 'conformance-job',
    async open(options = {}) {
      const { readonly, ...rest } = options;
      // A read-only journal is a JournalQueries; the suite checks that its writes are refused, so it is handed out as a
      // store.
      const store = readonly
        ? ((await openQueries(file(), { job: 'conformance-job', ...rest })) as JournalStore)
        : await openStore(file(), { job: 'conformance-job', ...rest });
      opened.push(store);
      return store;
    },
    async plantRunner(runner) {
      plantSqliteRunner(file(), runner);
    },
    async newerSchema() {
      const db = new Database(file());
      db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
      db.close();
      return async () => {
        const again = new Database(file());
        again.pragma(`user_version = ${SCHEMA_VERSION}`);
        again.close();
      };
    },
    async loseJournal(kind) {
      rmSync(file());
      if (kind === 'replaced') {
        writeFileSync(`${file()}.new`, 'another file');
        renameSync(`${file()}.new`, file());
      }
    },
  };
}
