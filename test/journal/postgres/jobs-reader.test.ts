// Every job of one database read through one reader (the dashboard's): listed newest first, each job's
// queries on the reader's one pool; a job's queries closed leaves the others reading, and nothing reads
// once the reader is closed. A schema not made yet lists no job.
import { describe, expect, it } from 'vitest';
import { openJournalReader, openStore } from '../../../src/journal/index.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ingest, row } from '../conformance/harness.js';

describe.skipIf(!pgAvailable())('PostgreSQL journal: one reader of many jobs', () => {
  const db = usePgSchema('gbatch_reader');
  const empty = usePgSchema('gbatch_reader_empty');

  it('lists the jobs and reads each through one pool', async () => {
    for (const [name, rows] of [
      ['older', 1],
      ['newer', 3],
    ] as const) {
      const store = await openStore(db.url(), { job: name });
      await ingest(
        store,
        Array.from({ length: rows }, (_, i) => row(`${name}-${i}`, i + 1)),
      );
      await store.saveJob({ name, manifest: `${name}.jsonl`, options: {} });
      await store.close();
    }
    const reader = await openJournalReader(db.url());
    try {
      const jobs = await reader.jobs();
      expect(jobs.map((j) => j.key)).toEqual(['newer', 'older']);
      expect(jobs[0]!.location).not.toContain('password');
      const [newer, older] = await Promise.all(jobs.map((job) => reader.queries(job)));
      expect((await newer!.reportSums()).total.items).toBe(3);
      expect((await older!.getJob())?.name).toBe('older');
      await older!.close();
      expect((await newer!.counts()).pending).toBe(3);
      await newer!.close();
    } finally {
      await reader.close();
    }
    const stale = await openJournalReader(db.url());
    const queries = await stale.queries({ key: 'newer', location: '' });
    await stale.close();
    await expect(queries.counts()).rejects.toThrow();
  });

  it('a database whose schema is not made yet holds no job', async () => {
    const reader = await openJournalReader(empty.url());
    try {
      expect(await reader.jobs()).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});
