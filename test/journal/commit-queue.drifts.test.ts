// A booking's read of the job's group ratios riding on the next group commit (CommitQueue.nextDrifts): the
// ratios come from a batch that began after the call, never from one already in flight; with nothing queued,
// a failed batch or an outage the caller is told to read them itself, at once.
import { describe, expect, it } from 'vitest';
import type { SeenDrift } from '../../src/core/seen-drift.js';
import type { Change, Move } from '../../src/journal/change.js';
import { CommitQueue, type JournalRun, type TransitionOptions } from '../../src/journal/index.js';

/** A drift naming the batch whose statement read it. */
const driftOf = (batch: number): SeenDrift => ({
  account: 'acct',
  model: 'chat-model',
  itemId: `batch-${batch}`,
  ratio: 1 + batch,
  tableUsd: 1,
  gatewayChargeUsd: 1 + batch,
  totalTokens: 1,
  resolution: null,
  finalResolution: null,
  hasReferenceVideo: false,
});

interface Call {
  ids: string[];
  readsDrifts: boolean;
  finish(outcome?: 'commits' | Error): void;
}

/** A journal whose commits wait for the test, each reading the drifts of its own batch number when asked. */
function heldJournal(): { journal: JournalRun; calls: Call[]; call: (n: number) => Promise<Call> } {
  const calls: Call[] = [];
  const waiting = new Map<number, (call: Call) => void>();
  const journal = {
    applyTransitions(changes: readonly Change[], options: TransitionOptions = {}): Promise<Move[]> {
      const batch = calls.length + 1;
      return new Promise<Move[]>((resolve, reject) => {
        const call: Call = {
          ids: changes.map((c) => c.id),
          readsDrifts: options.readDrifts !== undefined,
          finish(outcome = 'commits') {
            if (outcome instanceof Error) return reject(outcome);
            options.readDrifts?.([driftOf(batch)]);
            resolve(changes.map(() => ({ from: 'pending', to: 'submitting', at: 0 })));
          },
        };
        calls.push(call);
        waiting.get(batch)?.(call);
      });
    },
  } as unknown as JournalRun;
  /** The n-th commit (from 1), once it is made. */
  const call = (n: number): Promise<Call> =>
    calls[n - 1] ? Promise.resolve(calls[n - 1]!) : new Promise((resolve) => waiting.set(n, resolve));
  return { journal, calls, call };
}

const change = (id: string): Change => ({ id, event: 'submit', expect: 'pending' });

describe('CommitQueue.nextDrifts', () => {
  it('with nothing queued: undefined at once, and no commit is made for it', async () => {
    const { journal, calls } = heldJournal();
    const queue = new CommitQueue(journal);
    await expect(queue.nextDrifts()).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('takes the ratios the next batch read, asked for at once rather than after the commit window', async () => {
    const { journal, call } = heldJournal();
    // A window of a minute: a batch asked for only after it would fail the test by its timeout.
    const queue = new CommitQueue(journal, 60_000);
    const warm = queue.commit(change('a'));
    (await call(1)).finish();
    await warm;
    const written = queue.commit(change('b')); // within the window: would wait a minute
    const drifts = queue.nextDrifts();
    const second = await call(2);
    expect(second).toMatchObject({ ids: ['b'], readsDrifts: true });
    second.finish();
    await expect(drifts).resolves.toEqual([driftOf(2)]);
    await written;
  });

  it('never takes the ratios of a batch already in flight at the call: the next one', async () => {
    const { journal, call } = heldJournal();
    const queue = new CommitQueue(journal);
    const inFlight = queue.commit(change('a'));
    const firstCall = await call(1);
    expect(firstCall.readsDrifts).toBe(false);
    const queued = queue.commit(change('b'));
    const drifts = queue.nextDrifts();
    firstCall.finish(); // it reads nothing for the rider, which came after it began
    await inFlight;
    const secondCall = await call(2);
    expect(secondCall).toMatchObject({ ids: ['b'], readsDrifts: true });
    secondCall.finish();
    await expect(drifts).resolves.toEqual([driftOf(2)]);
    await queued;
  });

  it('when the batch fails: undefined at once (the caller reads alone), and the batch is retried change by change', async () => {
    const { journal, calls, call } = heldJournal();
    const queue = new CommitQueue(journal);
    const written = queue.commit(change('a'));
    const drifts = queue.nextDrifts();
    (await call(1)).finish(new Error('refused'));
    await expect(drifts).resolves.toBeUndefined();
    const again = await call(2);
    expect(again).toMatchObject({ ids: ['a'], readsDrifts: false });
    again.finish();
    await written;
    expect(calls).toHaveLength(2);
  });

  it('through a full disk: riders are let go at once, and a rider arriving meanwhile is not held', async () => {
    const { journal, call } = heldJournal();
    const queue = new CommitQueue(journal);
    const written = queue.commit(change('a'));
    const drifts = queue.nextDrifts();
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    (await call(1)).finish(full);
    await expect(drifts).resolves.toBeUndefined();
    // The answer is held through the outage and tried again; meanwhile a booking does not wait for it.
    const later = queue.commit(change('b'));
    await expect(queue.nextDrifts()).resolves.toBeUndefined();
    (await call(2)).finish();
    await written;
    (await call(3)).finish();
    await later;
  });
});
