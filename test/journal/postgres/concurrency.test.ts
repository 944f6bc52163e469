// Several runners on one job: ingests take turns (the second finds the rows unchanged), and an
// operator's decideAndApply keeps a runner's transitions out between its reads and its writes.
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/journal/index.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ingest, row } from '../conformance/harness.js';
import { IllegalTransitionError } from '../../../src/core/states.js';

describe.skipIf(!pgAvailable())('PostgreSQL journal: runners at once', () => {
  const db = usePgSchema('gbatch_conc');

  /** Resolves once a session waits for the write lock of `job` (PostgreSQL stores the int4 key as an oid). */
  async function someoneWaitsForTheWriteLock(job: string): Promise<void> {
    for (;;) {
      const waiting = await db.query(
        `SELECT count(*)::int AS n FROM pg_locks l, jobs j
        WHERE l.locktype = 'advisory' AND NOT l.granted AND j.name = $2 AND l.objid::bigint = j.id
          AND l.classid::bigint = (hashtext($1 || ':gbatch:write')::bigint & 4294967295)`,
        [db.schema, job],
      );
      if (waiting.rows[0]!.n > 0) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('two runners ingesting the same rows at once: one inserts them all, the other finds them unchanged', async () => {
    const [first, second] = await Promise.all([1, 2].map(() => openStore(db.url(), { job: 'ingest-race' })));
    try {
      const rows = Array.from({ length: 5000 }, (_, i) => row(`r${i}`, i + 1));
      const summaries = await Promise.all([ingest(first!, rows), ingest(second!, rows)]);
      const byInserted = summaries.sort((a, b) => b.inserted - a.inserted);
      expect(byInserted).toEqual([
        { inserted: 5000, unchanged: 0, replaced: 0, conflicts: [] },
        { inserted: 0, unchanged: 5000, replaced: 0, conflicts: [] },
      ]);
      expect((await first!.counts()).pending).toBe(5000);
    } finally {
      await first!.close();
      await second!.close();
    }
  });

  it("decideAndApply: a runner's transition waits for the decision, then finds the row moved", async () => {
    const operator = await openStore(db.url(), { job: 'resolve-race' });
    const runner = await openStore(db.url(), { job: 'resolve-race' });
    try {
      await ingest(operator, [row('a', 1)]);
      await runner.applyTransitions([
        { id: 'a', event: 'submit' },
        { id: 'a', event: 'lose' },
      ]);
      let letDecide!: () => void;
      const decided = new Promise<void>((resolve) => {
        letDecide = resolve;
      });
      let runnerDone = false;
      let deciding!: () => void;
      const reading = new Promise<void>((resolve) => {
        deciding = resolve;
      });
      const resolution = operator.decideAndApply(async (reader) => {
        const item = await reader.get('a');
        deciding();
        await decided;
        return { changes: [{ id: 'a', event: 'abandon', expect: item!.state }], result: item!.state };
      });
      await reading; // the decision holds the job's write lock now
      const write = runner.applyTransitions([{ id: 'a', event: 'resubmit' }]).finally(() => {
        runnerDone = true;
      });
      const writeOutcome = write.then(
        () => 'applied',
        (err: unknown) => err,
      );
      await someoneWaitsForTheWriteLock('resolve-race');
      expect(runnerDone).toBe(false);
      letDecide();
      expect(await resolution).toBe('uncertain');
      expect(await writeOutcome).toBeInstanceOf(IllegalTransitionError);
      expect((await runner.get('a'))!.state).toBe('failed');
    } finally {
      await operator.close();
      await runner.close();
    }
  });
});
