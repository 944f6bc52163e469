// Deferred fsync: a commit whose loss costs only repeated work skips its fsync until syncDeferred().
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CommitQueue } from '../../../src/journal/index.js';
import { entry, ingest, submitChange, useTempDir } from '../../helpers/journal-fixtures.js';
import { beforeEachTransition, rawDb } from '../../helpers/journal-raw.js';

const tmp = useTempDir();

/** Records the synchronous setting in force at each COMMIT-bearing call and every WAL fsync. */
function observed(options: { sync?: 'full' | 'off' } = {}) {
  const walSyncs: string[] = [];
  const journal = tmp.open('job.db', { ...options, syncWal: (path: string) => walSyncs.push(path) });
  const modes: number[] = [];
  beforeEachTransition(journal, () => modes.push(rawDb(journal).pragma('synchronous', { simple: true }) as number));
  return { journal, walSyncs, modes };
}

const FULL = 2;
const NORMAL = 1;

describe('deferred sync', () => {
  it('a deferred commit runs without fsync, the connection goes back to FULL, and syncDeferred() fsyncs the WAL once', () => {
    const { journal, walSyncs, modes } = observed();
    ingest(journal, [entry('a'), entry('b')]);
    journal.applyTransitions([submitChange(journal.get('a')!)], { deferSync: true });
    expect(modes).toEqual([NORMAL]);
    expect(rawDb(journal).pragma('synchronous', { simple: true })).toBe(FULL);
    expect(journal.deferredCommitCount).toBe(1);
    expect(journal.get('a')!.state).toBe('submitting');

    journal.applyTransitions([submitChange(journal.get('b')!)]);
    expect(modes).toEqual([NORMAL, FULL]);

    journal.syncDeferred();
    journal.syncDeferred();
    expect(walSyncs).toEqual([`${journal.file}-wal`]);
    expect(journal.deferredCommitCount).toBe(0);
  });

  it('close() makes deferred commits durable first', () => {
    const { journal, walSyncs } = observed();
    ingest(journal, [entry('a')]);
    journal.applyTransitions([submitChange(journal.get('a')!)], { deferSync: true });
    journal.close();
    expect(walSyncs).toHaveLength(1);
  });

  it('with --journal-sync off nothing is deferred (nothing is synced anyway)', () => {
    const { journal, walSyncs, modes } = observed({ sync: 'off' });
    ingest(journal, [entry('a')]);
    journal.applyTransitions([submitChange(journal.get('a')!)], { deferSync: true });
    expect(modes).toEqual([0]);
    journal.syncDeferred();
    expect(walSyncs).toEqual([]);
  });

  it('the default WAL fsync works on the real file', () => {
    const journal = tmp.open('real.db');
    ingest(journal, [entry('a')]);
    journal.applyTransitions([submitChange(journal.get('a')!)], { deferSync: true });
    expect(existsSync(`${journal.file}-wal`)).toBe(true);
    expect(() => journal.syncDeferred()).not.toThrow();
    expect(journal.deferredCommitCount).toBe(0);
  });

  it('CommitQueue: a batch made only of deferred writes defers; one ordinary write makes the batch synced', async () => {
    const { journal, modes } = observed();
    ingest(
      journal,
      ['a', 'b', 'c', 'd'].map((id) => entry(id)),
    );
    const queue = new CommitQueue(journal.store);
    await Promise.all([
      queue.write(submitChange(journal.get('a')!), undefined, { durability: 'relaxed' }),
      queue.write(submitChange(journal.get('b')!), undefined, { durability: 'relaxed' }),
    ]);
    await Promise.all([
      queue.write(submitChange(journal.get('c')!), undefined, { durability: 'relaxed' }),
      queue.write(submitChange(journal.get('d')!)),
    ]);
    expect(modes).toEqual([NORMAL, FULL]);
    expect(journal.deferredCommitCount).toBe(1);
  });
});
