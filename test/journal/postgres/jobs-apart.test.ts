// One database, many jobs: the same ids in two jobs are two rows each with its own state, events,
// runs, manifests, runners and group ratios seen; read-only stores see nothing of a job (or a schema)
// that is not there.
import { describe, expect, it } from 'vitest';
import { openQueries, openStore, type JournalStore } from '../../../src/journal/index.js';
import { pgAvailable, PG_TEST_URL, usePgSchema, withSearchPath } from '../../helpers/postgres.js';
import { ingest, row } from '../conformance/harness.js';

describe.skipIf(!pgAvailable())('PostgreSQL journal: jobs in one database', () => {
  const db = usePgSchema('gbatch_jobs');

  it('keeps two jobs apart', async () => {
    const a = await openStore(db.url(), { job: 'job-a' });
    const b = await openStore(db.url(), { job: 'job-b' });
    try {
      await ingest(a, [row('x', 1), row('y', 2)], [{ path: '/m.jsonl', bytes: 1, sha256: 'a', rows: 2 }]);
      await ingest(b, [row('x', 1, { contentHash: 'different' })]);
      await a.applyTransitions([{ id: 'x', event: 'submit', patch: { reservedUsd: 0.5 } }]);
      await a.saveJob({ name: 'job-a', manifest: 'a.jsonl', options: {} });
      await a.recordRunStart();
      await a.membership.acquire();

      expect((await b.get('x'))!).toMatchObject({ state: 'pending', contentHash: 'different' });
      expect((await b.counts()).submitting).toBe(0);
      expect(await b.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
      expect(await b.events('x')).toEqual([]);
      expect(await b.getJob()).toBeUndefined();
      expect(await b.lastRun()).toBeUndefined();
      expect(await b.manifestRecords(['/m.jsonl'])).toEqual(new Map());
      expect(await b.membership.runners()).toEqual([]);
      expect(await b.membership.acquire()).toBeUndefined();
      expect((await b.reportSums()).total.items).toBe(1);
      const seen = {
        account: 'acct',
        model: 'video-mini',
        itemId: 'x',
        totalTokens: 108_900,
        resolution: '720p',
        finalResolution: '720p',
        hasReferenceVideo: false,
        tableUsd: 0.18417168,
        gatewayChargeUsd: 0.36834336,
        ratio: 2,
      };
      await a.recordDrift(seen);
      expect(await a.drifts()).toEqual([seen]);
      expect(await b.drifts()).toEqual([]);
      expect((await b.coordination.jobMoney()).drifts).toEqual([]);
      expect((await a.reportSums()).total.items).toBe(2);
      await expect(a.saveJob({ name: 'job-b', manifest: 'b', options: {} })).rejects.toThrow(
        "cannot save job 'job-b' into job 'job-a'",
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('read-only: a job that is not there reads as empty and is not created; writes refused', async () => {
    // A read-only journal is a JournalQueries; its writes are refused, so it is handed out as a store.
    const store = (await openQueries(db.url(), { job: 'ghost' })) as JournalStore;
    try {
      expect(await store.getJob()).toBeUndefined();
      expect(Object.values(await store.counts()).every((n) => n === 0)).toBe(true);
      expect(await store.list(['pending'])).toEqual([]);
      expect(await store.reportSums()).toMatchObject({ total: { items: 0 }, groups: [] });
      expect(await store.membership.runners()).toEqual([]);
      await expect(store.applyTransitions([{ id: 'x', event: 'submit' }])).rejects.toThrow(
        "job 'ghost' was opened read-only",
      );
      expect((await db.query(`SELECT count(*)::int AS n FROM jobs WHERE name = 'ghost'`)).rows).toEqual([{ n: 0 }]);
    } finally {
      await store.close();
    }
  });

  it('read-only on a schema gbatch never wrote: empty, no error, nothing created', async () => {
    const empty = `${db.schema}_empty`;
    await db.query(`CREATE SCHEMA ${empty}`);
    try {
      const store = await openQueries(withSearchPath(PG_TEST_URL, empty), { job: 'j' });
      expect(await store.getJob()).toBeUndefined();
      expect(await store.firstOpenSeq()).toBeUndefined();
      expect(await store.lastRun()).toBeUndefined();
      await store.close();
      expect((await db.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1`, [empty])).rows).toEqual([
        { n: 0 },
      ]);
    } finally {
      await db.query(`DROP SCHEMA ${empty} CASCADE`);
    }
  });
});
