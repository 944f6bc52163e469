// The commit queue's fast paths: resolving with the caller's copy instead of re-reading, and bare commits.
import { describe, expect, it } from 'vitest';
import { CommitQueue } from '../../src/journal/index.js';
import { entry, ingest, submitChange, useTempDir } from '../helpers/journal-fixtures.js';

describe('CommitQueue with a base item', () => {
  const tmp = useTempDir();

  it('resolves with the base plus the patch and the new state, equal to what the journal now holds', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b')]);
    const queue = new CommitQueue(journal.store);
    const base = journal.get('a')!;
    const merged = await queue.write(submitChange(base, 1), base);
    const stored = journal.get('a')!;
    expect(merged.state).toBe('submitting');
    expect(merged).toEqual(stored);
  });

  it('commit() makes the change durable and resolves with nothing', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    const queue = new CommitQueue(journal.store);
    await expect(queue.commit(submitChange(journal.get('a')!, 1))).resolves.toBeUndefined();
    expect(journal.get('a')!.state).toBe('submitting');
    expect(journal.events('a').map((e) => e.event)).toEqual(['submit']);
  });

  it('changes requested in the same turn share one transaction even with a commit window', async () => {
    const journal = tmp.open();
    ingest(
      journal,
      ['a', 'b', 'c'].map((id) => entry(id)),
    );
    const queue = new CommitQueue(journal.store, 5);
    await Promise.all(['a', 'b', 'c'].map((id) => queue.commit(submitChange(journal.get(id)!, 1))));
    expect(queue.commitCount).toBe(1);
  });
});
