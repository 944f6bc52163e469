// The conformance harness of the PostgreSQL adapter: one schema for the test file, a job per test.
import { afterEach, beforeEach } from 'vitest';
import { openQueries, openStore, type JournalStore } from '../../../src/journal/index.js';
import { plantPostgresRunner } from '../../helpers/journal-raw.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { SCHEMA_VERSION } from '../../../src/journal/postgres/schema.js';
import type { Harness, UseHarness } from './harness.js';

function postgresHarness(): Harness {
  const db = usePgSchema('gbatch_conf');
  let job: string | undefined;
  let count = 0;
  let opened: JournalStore[] = [];
  beforeEach(() => {
    job = `job-${++count}`;
  });
  afterEach(async () => {
    for (const store of opened) await store.close();
    opened = [];
  });
  return {
    adapter: 'postgres',
    jobName: () => job!,
    async open(options = {}) {
      const { readonly, ...rest } = options;
      // A read-only journal is a JournalQueries; the suite checks that its writes are refused, so it is handed out as a
      // store.
      const store = readonly
        ? ((await openQueries(db.url(), { job: job!, ...rest })) as JournalStore)
        : await openStore(db.url(), { job: job!, ...rest });
      opened.push(store);
      return store;
    },
    async plantRunner(runner) {
      await plantPostgresRunner(db, job!, runner);
    },
    async newerSchema() {
      await db.query('UPDATE gbatch_schema_version SET version = $1 WHERE id = 1', [SCHEMA_VERSION + 1]);
      return async () => {
        await db.query('UPDATE gbatch_schema_version SET version = $1 WHERE id = 1', [SCHEMA_VERSION]);
      };
    },
  };
}

export const usePostgresHarness: UseHarness = Object.assign(postgresHarness, { available: pgAvailable });
