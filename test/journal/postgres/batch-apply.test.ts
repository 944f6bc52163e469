// The group commit's one-statement path (gbatch_apply_plan): all of a batch or none of it, each row
// compare-and-set on its expected state and on whose it is, values written exactly as the long path
// writes them, and a runner that lost its lease fenced.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LockLostError,
  StaleTransitionError,
  type Change,
  type JournalStore,
  openStore,
} from '../../../src/journal/index.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ingest, row, thrown } from '../conformance/harness.js';

describe.skipIf(!pgAvailable())('PostgreSQL journal: a batch of transitions in one statement', () => {
  const db = usePgSchema('gbatch_batch');
  const opened: JournalStore[] = [];
  let jobs = 0;

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  async function job(rows: number, runners = 1): Promise<JournalStore[]> {
    const name = `batch-${++jobs}`;
    const stores = await Promise.all(Array.from({ length: runners }, () => openStore(db.url(), { job: name })));
    opened.push(...stores);
    await ingest(
      stores[0]!,
      Array.from({ length: rows }, (_, i) => row(`r${i}`, i + 1)),
    );
    await stores[0]!.saveJob({ name, manifest: 'm.jsonl', options: {} });
    for (const store of stores) await store.membership.acquire();
    return stores;
  }

  const submit = (id: string, reservedUsd = 0.1): Change => ({
    id,
    event: 'submit',
    expect: 'pending',
    patch: { attempts: 1, reservedUsd },
    detail: { attempt: 1 },
  });

  it('a stale row among fresh ones: that one is named, and no row of the batch moves', async () => {
    const [store] = await job(4);
    await store!.applyTransitions([submit('r2')]);
    const err = await thrown(store!.applyTransitions([submit('r0'), submit('r1'), submit('r2'), submit('r3')]));
    expect(err).toBeInstanceOf(StaleTransitionError);
    expect(err).toMatchObject({ itemId: 'r2', expected: 'pending', actual: 'submitting' });
    expect((await store!.counts()).pending).toBe(3);
    expect(await store!.events('r0')).toEqual([]);
    expect((await store!.spend()).reservedUsd).toBeCloseTo(0.1, 9);
    // The fresh ones go through once the stale one is left out.
    await store!.applyTransitions([submit('r0'), submit('r1'), submit('r3')]);
    expect((await store!.counts()).submitting).toBe(4);
  });

  it('a row another runner holds is refused in a batch; an unknown id is an error, not a stale row', async () => {
    const [a, b] = await job(3, 2);
    await a!.applyTransitions([submit('r0')]);
    const err = await thrown(
      b!.applyTransitions([
        submit('r1'),
        { id: 'r0', event: 'complete', expect: 'submitting', patch: { reservedUsd: 0 } },
      ]),
    );
    expect(err).toMatchObject({ itemId: 'r0', expected: 'submitting' });
    expect(err).toBeInstanceOf(StaleTransitionError);
    expect((await a!.get('r1'))!.state).toBe('pending');
    const unknown = await thrown(a!.applyTransitions([submit('r1'), submit('nope')]));
    expect(unknown).not.toBeInstanceOf(StaleTransitionError);
    expect((unknown as Error).message).toContain("unknown item 'nope'");
  });

  it('writes every patched value exactly, leaves the rest, logs events in batch order, moves the money', async () => {
    const [store] = await job(2);
    await store!.applyTransitions([submit('r0', 0.1 + 0.2), submit('r1', 0.5)], { durability: 'relaxed' });
    const response = { text: 'quote " backslash \\ tab \t nul-escape \u0001', n: 1e-7 };
    await store!.applyTransitions([
      {
        id: 'r1',
        event: 'lose',
        expect: 'submitting',
        patch: { lastError: { message: 'gone' } },
        detail: { reason: 'x' },
      },
      {
        id: 'r0',
        event: 'complete',
        expect: 'submitting',
        patch: {
          reservedUsd: 0,
          actualUsd: 0.07,
          totalTokens: 12,
          response,
          responseStatus: 200,
          requestId: 'req-1',
          unmetered: true,
        },
      },
    ]);
    const r0 = (await store!.get('r0'))!;
    expect(r0).toMatchObject({
      state: 'succeeded',
      attempts: 1,
      reservedUsd: 0,
      actualUsd: 0.07,
      totalTokens: 12,
      response,
      responseStatus: 200,
      requestId: 'req-1',
      unmetered: true,
      lastError: null,
    });
    expect((await store!.get('r1'))!).toMatchObject({
      state: 'uncertain',
      reservedUsd: 0.5,
      lastError: { message: 'gone' },
    });
    expect(await store!.spend()).toEqual({ reservedUsd: 0.5, actualUsd: 0.07 });
    expect((await store!.events('r0')).map((e) => [e.event, e.from, e.to, e.detail])).toEqual([
      ['submit', 'pending', 'submitting', { attempt: 1 }],
      ['complete', 'submitting', 'succeeded', null],
    ]);
    const seqs = (
      await db.query(`SELECT item_id FROM events WHERE event IN ('lose', 'complete') ORDER BY seq`)
    ).rows.map((r) => r.item_id);
    expect(seqs.slice(-2)).toEqual(['r1', 'r0']);
    // A row leaving the held states is no one's; one entering them is the writer's.
    const owners = (
      await db.query(
        `SELECT id, owner FROM items WHERE id IN ('r0', 'r1') AND job_id = (SELECT id FROM jobs WHERE name = $1) ORDER BY id`,
        [`batch-${jobs}`],
      )
    ).rows;
    const [me] = await store!.membership.runners();
    expect(owners).toEqual([
      { id: 'r0', owner: me!.runnerId },
      { id: 'r1', owner: null },
    ]);
  });

  it('a row another writer moves between the look and the write: that one is named, and the batch undone', async () => {
    const [store] = await job(2);
    const other = new pg.Client({ connectionString: db.url() });
    await other.connect();
    try {
      // The other writer's move is not committed yet: the batch sees r1 pending, then waits on its row.
      await other.query('BEGIN');
      await other.query(
        `UPDATE items SET state = 'deferred' WHERE id = 'r1' AND job_id = (SELECT id FROM jobs WHERE name = $1)`,
        [`batch-${jobs}`],
      );
      const xid = (await other.query('SELECT txid_current()::text AS xid')).rows[0].xid as string;
      const batch = thrown(store!.applyTransitions([submit('r0'), submit('r1')]));
      for (;;) {
        const waiting = await db.query(
          `SELECT count(*)::int AS n FROM pg_locks
          WHERE NOT granted AND locktype = 'transactionid' AND transactionid::text = $1`,
          [xid],
        );
        if (waiting.rows[0]!.n > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await other.query('COMMIT');
      const err = await batch;
      expect(err).toBeInstanceOf(StaleTransitionError);
      expect(err).toMatchObject({ itemId: 'r1', expected: 'pending', actual: 'deferred' });
      expect((await store!.get('r0'))!.state).toBe('pending');
      expect(await store!.events('r0')).toEqual([]);
      expect(await store!.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
    } finally {
      await other.end();
    }
  });

  it('a runner whose lease was swept writes nothing more, fenced from then on', async () => {
    const [store] = await job(2);
    const [me] = await store!.membership.runners();
    await db.query(`UPDATE runners SET swept_at = 1 WHERE runner_id = $1`, [me!.runnerId]);
    expect(await thrown(store!.applyTransitions([submit('r0')]))).toBeInstanceOf(LockLostError);
    expect(await thrown(store!.applyTransitions([submit('r1')]))).toBeInstanceOf(LockLostError);
    expect((await store!.counts()).pending).toBe(2);
  });
});
