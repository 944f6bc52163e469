// The operator's bulk decisions on a real journal: retry's requeue, resolve --all-uncertain, and the
// event-log questions they ask (when a row was sent, why a row is failed).
import { ManualClock } from '../../../src/core/clock.js';
import { describe, expect, it } from 'vitest';
import { requeueChange } from '../../../src/journal/requeue.js';
import { resolveAllUncertain } from '../../../src/journal/resolve-all.js';
import { entry, ingest, submitChange, useTempDir } from '../../helpers/journal-fixtures.js';
import { abandonedWhileUncertain, lastSubmitTimes, type SyncJournal } from '../../helpers/journal-raw.js';

const tmp = useTempDir('gbatch-operator-');

function failedVideo(journal: SyncJournal, id: string): void {
  journal.apply([submitChange(journal.get(id)!)]);
  journal.apply([{ id, event: 'accept', patch: { taskId: `task_${id}` } }]);
  journal.apply([
    {
      id,
      event: 'fail',
      patch: { actualUsd: 0, reservedUsd: 0, gatewayChargeUsd: 0, lastError: { message: 'content policy' } },
    },
  ]);
}

function uncertain(journal: SyncJournal, id: string): void {
  journal.apply([submitChange(journal.get(id)!)]);
  journal.apply([{ id, event: 'lose', patch: { lastError: { message: 'socket hang up' } } }]);
}

describe('requeue (gbatch retry)', () => {
  it('a failed row goes back to pending with its per-attempt fields cleared, attempts kept, the last attempt in the event', () => {
    const journal = tmp.open();
    ingest(journal, [entry('v', { kind: 'video' })]);
    failedVideo(journal, 'v');
    const failed = journal.get('v')!;
    expect(failed).toMatchObject({ state: 'failed', attempts: 1, taskId: 'task_v', actualUsd: 0 });

    const [item] = journal.apply([requeueChange(failed)]);
    expect(item).toMatchObject({
      state: 'pending',
      attempts: 1,
      taskId: null,
      actualUsd: null,
      totalTokens: null,
      finalResolution: null,
      gatewayChargeUsd: null,
      resultUrl: null,
      response: null,
      outputPath: null,
      sha256: null,
      bytes: null,
      lastError: null,
      reservedUsd: 0,
      estimateUsd: failed.estimateUsd,
      request: failed.request,
    });
    expect(journal.events('v').at(-1)).toMatchObject({
      event: 'requeue',
      from: 'failed',
      to: 'pending',
      detail: {
        by: 'operator',
        previous: {
          state: 'failed',
          attempts: 1,
          taskId: 'task_v',
          error: { message: 'content policy' },
          actualUsd: 0,
        },
      },
    });
    // The next send is attempt 2.
    expect(journal.apply([submitChange(item!, item!.attempts + 1)])[0]).toMatchObject({
      state: 'submitting',
      attempts: 2,
    });
  });

  it('a rejected row is requeued; decideAndApply writes exactly the changes decided and returns the decision', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('r'), entry('s')]);
    for (const id of ['r', 's']) {
      journal.apply([submitChange(journal.get(id)!)]);
      journal.apply([
        { id, event: 'reject', patch: { reservedUsd: 0, lastError: { status: 403, message: 'model not allowed' } } },
      ]);
    }
    const result = await journal.store.decideAndApply(async (reader) => ({
      changes: [requeueChange((await reader.get('r'))!)],
      result: 'decided',
    }));
    expect(result).toBe('decided');
    expect(journal.get('r')!.state).toBe('pending');
    expect(journal.get('s')!.state).toBe('rejected');
    expect(journal.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
  });
});

describe('the event log, asked by the operator commands', () => {
  it('abandonedWhileUncertain tells a row abandoned while uncertain from a failed task or an abandoned unsent row', () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('task', { kind: 'video' }),
      entry('lost', { kind: 'video' }),
      entry('unsent'),
      entry('back'),
    ]);
    failedVideo(journal, 'task');
    uncertain(journal, 'lost');
    journal.apply([{ id: 'lost', event: 'abandon', patch: { reservedUsd: 0 } }]);
    journal.apply([{ id: 'unsent', event: 'abandon' }]);
    // Abandoned while uncertain, then (as a later policy might) sent again and failed upstream: the last move counts.
    uncertain(journal, 'back');
    journal.apply([{ id: 'back', event: 'resubmit', patch: { reservedUsd: 0 } }]);
    journal.apply([{ id: 'back', event: 'abandon' }]);
    expect(abandonedWhileUncertain(journal, ['task', 'lost', 'unsent', 'back'])).toEqual(new Set(['lost']));
    expect(abandonedWhileUncertain(journal, [])).toEqual(new Set());
  });

  it("lastSubmitTimes gives the time of each row's last submit event, none for a row never sent", () => {
    const clock = new ManualClock(1_000);
    const journal = tmp.open('job.db', { clock });
    ingest(journal, [entry('a'), entry('b'), entry('never')]);
    journal.apply([submitChange(journal.get('a')!)]);
    journal.apply([{ id: 'a', event: 'retry', patch: { reservedUsd: 0 } }]);
    clock.tick(5_000);
    journal.apply([submitChange(journal.get('a')!, 2), submitChange(journal.get('b')!)]);
    clock.tick(1_000);
    journal.apply([{ id: 'b', event: 'lose' }]);
    expect(lastSubmitTimes(journal, ['a', 'b', 'never'])).toEqual(
      new Map([
        ['a', 6_000],
        ['b', 6_000],
      ]),
    );
    expect(lastSubmitTimes(journal, [])).toEqual(new Map());
  });
});

describe('resolveAllUncertain (resolve --all-uncertain)', () => {
  it('--abandon moves every uncertain row, and only those, to failed; their bounds stay booked (they may have been billed)', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('u1', { kind: 'video' }), entry('p'), entry('u2'), entry('u3', { kind: 'video' })]);
    for (const id of ['u1', 'u2', 'u3']) uncertain(journal, id);
    const booked = journal.spend().reservedUsd;
    expect(booked).toBeGreaterThan(0);

    expect(await resolveAllUncertain(journal.store, 'abandon')).toEqual(['u1', 'u2', 'u3']);
    expect(journal.counts()).toMatchObject({ failed: 3, pending: 1, uncertain: 0 });
    expect(journal.spend()).toEqual({ reservedUsd: booked, actualUsd: 0 });
    expect(journal.get('u1')!.lastError).toMatchObject({ type: 'abandoned_uncertain' });
    expect(journal.events('u2').at(-1)).toMatchObject({
      event: 'abandon',
      from: 'uncertain',
      to: 'failed',
      detail: { by: 'operator', bulk: true },
    });
    expect(abandonedWhileUncertain(journal, ['u1', 'u2', 'u3'])).toEqual(new Set(['u1', 'u2', 'u3']));
    expect(await resolveAllUncertain(journal.store, 'abandon')).toEqual([]);
  });

  it('--abandon --not-billed releases their reservations', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('u1', { kind: 'video' }), entry('u2')]);
    for (const id of ['u1', 'u2']) uncertain(journal, id);
    expect(await resolveAllUncertain(journal.store, 'abandon', true)).toEqual(['u1', 'u2']);
    expect(journal.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
    expect(journal.get('u2')!.lastError).toMatchObject({ type: 'abandoned_not_billed' });
    expect(abandonedWhileUncertain(journal, ['u1', 'u2'])).toEqual(new Set(['u1', 'u2']));
  });

  it('--resubmit makes every uncertain row pending, its bound carried, more rows than one page', async () => {
    const journal = tmp.open();
    const ids = Array.from({ length: 1_203 }, (_, i) => `u${i}`);
    ingest(
      journal,
      ids.map((id) => entry(id)),
    );
    journal.apply(ids.map((id) => submitChange(journal.get(id)!)));
    journal.apply(ids.map((id) => ({ id, event: 'lose' as const })));
    expect(await resolveAllUncertain(journal.store, 'resubmit')).toEqual(ids);
    expect(journal.counts()).toMatchObject({ pending: 1_203, uncertain: 0 });
    // Each lost request may have been billed: its bound stays booked, carried by the row.
    expect(journal.spend().reservedUsd).toBeCloseTo(1_203 * journal.get('u0')!.estimateUsd, 9);
    expect(journal.get('u0')).toMatchObject({ reservedUsd: 0, carriedUsd: journal.get('u0')!.estimateUsd });
  });
});
