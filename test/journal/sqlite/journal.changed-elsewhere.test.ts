// A writer's change carries the state it last saw; a row moved meanwhile (an operator's `resolve` under a
// live run) fails as stale, naming the state it is in now, never as an illegal transition (a bug).
import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../../../src/core/states.js';
import { CommitQueue, StaleTransitionError } from '../../../src/journal/index.js';
import { entry, ingest, submitChange, useTempDir } from '../../helpers/journal-fixtures.js';

const tmp = useTempDir();

describe('changes made from a stale copy', () => {
  it('apply with `expect` refuses a row that left that state, as stale, naming its state now', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    const seen = journal.get('a')!;
    journal.apply([{ id: 'a', event: 'abandon', expect: 'pending' }]);

    let thrown: unknown;
    try {
      journal.apply([{ ...submitChange(seen), expect: seen.state }]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StaleTransitionError);
    expect(thrown).toMatchObject({ itemId: 'a', event: 'submit', expected: 'pending', actual: 'failed' });
    expect(journal.get('a')!.state).toBe('failed');
    // Without `expect`, the same write is still what it always was: an illegal transition (a bug).
    expect(() => journal.apply([submitChange(seen)])).toThrow(IllegalTransitionError);
  });

  it('the commit queue expects the state of the copy it is given; its batch-mates still commit', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b')]);
    const [a, b] = [journal.get('a')!, journal.get('b')!];
    journal.apply([{ id: 'a', event: 'abandon' }]);
    const queue = new CommitQueue(journal.store);

    const [first, second] = await Promise.allSettled([
      queue.write(submitChange(a), a),
      queue.write(submitChange(b), b),
    ]);
    expect(first.status === 'rejected' && first.reason).toBeInstanceOf(StaleTransitionError);
    expect(second).toMatchObject({ status: 'fulfilled', value: { id: 'b', state: 'submitting' } });
  });

  it('a journal fenced (its lock lost) refuses every write with the reason', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    journal.fence(new Error('lock lost'));
    expect(() => journal.apply([submitChange(journal.get('a')!)])).toThrow('lock lost');
    expect(() => journal.annotate('a', { lastError: null }, 'note')).toThrow('lock lost');
    expect(journal.get('a')!.state).toBe('pending');
  });
});
