import { afterEach, describe, expect, it, vi } from 'vitest';
import { IllegalTransitionError } from '../../../src/core/states.js';
import { CommitQueue } from '../../../src/journal/index.js';
import { entry, eventRows, ingest, submitChange, useTempDir } from '../../helpers/journal-fixtures.js';

const tmp = useTempDir();

describe('CommitQueue (group commit)', () => {
  it('commits writes queued in one turn in ONE transaction; each promise resolves with its updated item', async () => {
    // Every read of this clock moves it, so each apply() (one transaction, one `now`) stamps its own time.
    let tick = 0;
    const journal = tmp.open('job.db', { clock: { now: () => ++tick * 1000 } });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    ingest(
      journal,
      ids.map((id) => entry(id)),
    );
    const queue = new CommitQueue(journal.store);

    const promises = ids.map((id, i) => queue.write(submitChange(journal.get(id)!, i + 1)));
    expect(queue.commitCount).toBe(0); // nothing is written before the turn ends
    expect(journal.get('a')!.state).toBe('pending');
    const items = await Promise.all(promises);

    expect(queue.commitCount).toBe(1);
    expect(items.map((i) => [i.id, i.state, i.attempts])).toEqual(ids.map((id, i) => [id, 'submitting', i + 1]));
    const events = eventRows(journal);
    expect(events.map((e) => e.item_id)).toEqual(ids);
    expect(new Set(events.map((e) => e.at)).size).toBe(1);
    expect(new Set(items.map((i) => i.updatedAt))).toEqual(new Set([events[0]!.at]));
  });

  it('writes from separate turns commit separately', async () => {
    let tick = 0;
    const journal = tmp.open('job.db', { clock: { now: () => ++tick } });
    ingest(journal, [entry('a'), entry('b')]);
    const queue = new CommitQueue(journal.store);
    await queue.write(submitChange(journal.get('a')!));
    await queue.write(submitChange(journal.get('b')!));
    expect(queue.commitCount).toBe(2);
    expect(journal.get('a')!.updatedAt).not.toBe(journal.get('b')!.updatedAt);
  });

  it('within the window an ordinary write waits, an urgent one (an intent) commits on the next turn with everything queued', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b'), entry('c')]);
    const queue = new CommitQueue(journal.store, 60_000);
    // A commit just happened: the window is open for a minute. (A flush with nothing queued commits
    // nothing and opens no window.) The first write, with no commit before it, is scheduled for the next
    // turn; the flush asked for directly takes its place, so nothing commits on that turn later.
    const first = queue.write(submitChange(journal.get('c')!));
    await queue.flush();
    await first;

    const ordinary = queue.write(submitChange(journal.get('a')!));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(journal.get('a')!.state).toBe('pending');

    const urgent = queue.write(submitChange(journal.get('b')!), undefined, { urgent: true });
    const [a, b] = await Promise.all([ordinary, urgent]);
    expect([a.state, b.state]).toEqual(['submitting', 'submitting']);
    expect(queue.commitCount).toBe(2);
  });

  describe('with a linger (a shared journal)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const fake = () =>
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });

    it('an intent waits out the linger from the first change, and what joins meanwhile shares its commit', async () => {
      fake();
      const journal = tmp.open();
      ingest(journal, [entry('a'), entry('b'), entry('c')]);
      const queue = new CommitQueue(journal.store, 2, undefined, () => 50);

      const first = queue.write(submitChange(journal.get('a')!), undefined, { urgent: true });
      await vi.advanceTimersByTimeAsync(30);
      expect(journal.get('a')!.state).toBe('pending');
      const second = queue.write(submitChange(journal.get('b')!), undefined, { urgent: true });
      const answer = queue.commit(submitChange(journal.get('c')!));
      await vi.advanceTimersByTimeAsync(19);
      expect(queue.commitCount).toBe(0);
      expect(journal.counts()).toMatchObject({ pending: 3 });

      await vi.advanceTimersByTimeAsync(1);
      await Promise.all([first, second, answer]);
      expect(queue.commitCount).toBe(1);
      expect(journal.counts()).toMatchObject({ submitting: 3 });
    });

    it('the next batch lingers from its own first change', async () => {
      fake();
      const journal = tmp.open();
      ingest(journal, [entry('a'), entry('b')]);
      const queue = new CommitQueue(journal.store, 2, undefined, () => 50);
      const first = queue.write(submitChange(journal.get('a')!), undefined, { urgent: true });
      await vi.advanceTimersByTimeAsync(50);
      await first;

      const second = queue.write(submitChange(journal.get('b')!), undefined, { urgent: true });
      await vi.advanceTimersByTimeAsync(49);
      expect(journal.get('b')!.state).toBe('pending');
      await vi.advanceTimersByTimeAsync(1);
      await second;
      expect(queue.commitCount).toBe(2);
    });

    it('a linger of zero is the queue without one: an intent commits on the next turn', async () => {
      fake();
      const journal = tmp.open();
      ingest(journal, [entry('a')]);
      const queue = new CommitQueue(journal.store, 60_000, undefined, () => 0);
      const written = queue.write(submitChange(journal.get('a')!), undefined, { urgent: true });
      await vi.advanceTimersByTimeAsync(0);
      await written;
      expect(queue.commitCount).toBe(1);
    });
  });

  it('a bad change rejects only its own promise; its batch-mates are committed', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b'), entry('c')]);
    const queue = new CommitQueue(journal.store);

    const results = await Promise.allSettled([
      queue.write(submitChange(journal.get('a')!)),
      queue.write({ id: 'b', event: 'store', patch: { outputPath: 'nope' } }),
      queue.write(submitChange(journal.get('c')!)),
      queue.write({ id: 'ghost', event: 'submit' }),
    ]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(IllegalTransitionError);
    expect(String((results[3] as PromiseRejectedResult).reason)).toMatch(/unknown item 'ghost'/);
    expect((results[0] as PromiseFulfilledResult<{ state: string }>).value.state).toBe('submitting');
    expect(journal.counts()).toMatchObject({ submitting: 2, pending: 1 });
    expect(journal.get('b')).toMatchObject({ state: 'pending', outputPath: null });
    expect(eventRows(journal).map((e) => e.item_id)).toEqual(['a', 'c']);
  });

  it('flush with nothing queued is a no-op', () => {
    const journal = tmp.open();
    const queue = new CommitQueue(journal.store);
    queue.flush();
    expect(queue.commitCount).toBe(0);
  });
});
