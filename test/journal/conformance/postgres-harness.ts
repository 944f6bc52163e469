// The conformance harness of the PostgreSQL adapter: one schema for the test file, a job per test.
import { afterEach, beforeEach } from 'vitest';
import { openQueries, openStore, type JournalStore } from '../../../src/journal/index.js';
import { usePgSchema } from '../../helpers/postgres.js';
import type { Harness } from './harness.js';

export function usePostgresHarness(): Harness {
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
    async plantRunner({ pid, host, heartbeatAt, processStart = null }) {
      await db.query('DELETE FROM runners WHERE job_id = (SELECT id FROM jobs WHERE name = $1)', [job]);
      await db.query(
        `INSERT INTO runners (job_id, runner_id, pid, host, process_start, started_at, heartbeat_at, lease_until)
        SELECT id, gen_random_uuid(), $2, $3, $4, $5, $5, $5 FROM jobs WHERE name = $1`,
        [job, pid, host, processStart, heartbeatAt],
      );
    },
  };
}
