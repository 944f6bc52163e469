import { ManualClock } from '../../../src/core/clock.js';
import { describe, expect, it } from 'vitest';
import { roundUsd } from '../../../src/core/money.js';
import { IllegalTransitionError } from '../../../src/core/states.js';
import { StaleTransitionError } from '../../../src/journal/index.js';
import { entry, eventRows, ingest, itemRows, submitChange, useTempDir } from '../../helpers/journal-fixtures.js';
import { rawDb } from '../../helpers/journal-raw.js';

const tmp = useTempDir();

function freshSum(journal: ReturnType<typeof tmp.open>): { reservedUsd: number; actualUsd: number } {
  const row = rawDb(journal).prepare('SELECT SUM(reserved_usd) AS r, SUM(actual_usd) AS a FROM items').get() as {
    r: number | null;
    a: number | null;
  };
  return { reservedUsd: roundUsd(row.r ?? 0), actualUsd: roundUsd(row.a ?? 0) };
}

describe('Journal.apply', () => {
  it('a legal transition writes the state, the patch and exactly one event row', () => {
    const clock = new ManualClock(10_000);
    const journal = tmp.open('job.db', { clock });
    ingest(journal, [entry('a'), entry('b')]);
    const untouched = itemRows(journal)[1];
    clock.tick(500);

    const change = submitChange(journal.get('a')!, 1);
    const [item] = journal.apply([change]);

    expect(item).toMatchObject({ id: 'a', state: 'submitting', attempts: 1, reservedUsd: 0.01, updatedAt: 10_500 });
    expect(item!.priceSnapshot).toEqual(change.patch.priceSnapshot);
    expect(journal.get('a')).toEqual(item);
    expect(itemRows(journal)[1]).toEqual(untouched);
    expect(eventRows(journal)).toEqual([
      {
        seq: 1,
        item_id: 'a',
        at: 10_500,
        event: 'submit',
        from_state: 'pending',
        to_state: 'submitting',
        detail: JSON.stringify({ attempt: 1 }),
      },
    ]);
    expect(journal.events('a')).toEqual([
      { at: 10_500, event: 'submit', from: 'pending', to: 'submitting', detail: { attempt: 1 } },
    ]);
  });

  it('leaves columns the patch does not name, and clears those patched to null', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    journal.apply([submitChange(journal.get('a')!)]);
    journal.apply([
      { id: 'a', event: 'retry', patch: { reservedUsd: 0, lastError: { status: 429, message: 'slow down' } } },
    ]);
    journal.apply([submitChange(journal.get('a')!, 2)]);
    const [done] = journal.apply([
      { id: 'a', event: 'complete', patch: { lastError: null, response: { ok: true }, responseStatus: 200 } },
    ]);

    expect(done).toMatchObject({
      state: 'succeeded',
      attempts: 2,
      reservedUsd: 0.01,
      lastError: null,
      response: { ok: true },
      responseStatus: 200,
    });
    expect(journal.events('a').map((e) => `${e.from}->${e.to}`)).toEqual([
      'pending->submitting',
      'submitting->pending',
      'pending->submitting',
      'submitting->succeeded',
    ]);
  });

  it('an illegal transition throws IllegalTransitionError and writes nothing', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    const rows = itemRows(journal);

    expect(() => journal.apply([{ id: 'a', event: 'store', patch: { outputPath: 'x' } }])).toThrow(
      IllegalTransitionError,
    );
    expect(itemRows(journal)).toEqual(rows);
    expect(eventRows(journal)).toEqual([]);
  });

  it('a batch with one illegal change rolls back all of them', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b'), entry('c')]);
    const rows = itemRows(journal);
    const spend = journal.spend();

    const batch = [
      submitChange(journal.get('a')!),
      submitChange(journal.get('b')!),
      { id: 'c', event: 'finish' as const },
    ];
    expect(() => journal.apply(batch)).toThrow(IllegalTransitionError);

    expect(itemRows(journal)).toEqual(rows);
    expect(eventRows(journal)).toEqual([]);
    expect(journal.spend()).toEqual(spend);
    expect(journal.spend()).toEqual(freshSum(journal));
  });

  it('an unknown item id throws and writes nothing', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    expect(() => journal.apply([submitChange(journal.get('a')!), { id: 'ghost', event: 'submit' }])).toThrow(
      /unknown item 'ghost'/,
    );
    expect(journal.get('a')!.state).toBe('pending');
    expect(eventRows(journal)).toEqual([]);
  });

  it('compare-and-set: a second journal on the same file cannot replay a move the first one made', () => {
    const first = tmp.open();
    ingest(first, [entry('a')]);
    const second = tmp.open();
    const seenBySecond = second.get('a')!;
    expect(seenBySecond.state).toBe('pending');

    first.apply([submitChange(first.get('a')!, 1)]);
    // The second journal still holds a 'pending' copy; its submit must not go through a second time.
    expect(() => second.apply([submitChange(seenBySecond, 1)])).toThrow(IllegalTransitionError);
    expect(second.events('a').filter((e) => e.event === 'submit')).toHaveLength(1);
    // It does see the first one's write, so the next legal step works from either instance.
    expect(second.apply([{ id: 'a', event: 'accept', patch: { taskId: 'task-1' } }])[0]).toMatchObject({
      state: 'submitted',
      taskId: 'task-1',
    });
    expect(first.get('a')).toMatchObject({ state: 'submitted', taskId: 'task-1' });
  });

  it('throws StaleTransitionError and writes nothing when the row left its state between read and write', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b')]);
    const rows = itemRows(journal);
    // Stand-in for another writer slipping in between the read and the compare-and-set update: the
    // UPDATE for 'b' silently matches nothing, exactly as `WHERE state = ?` would after a concurrent move.
    rawDb(journal).exec(`CREATE TEMP TRIGGER steal_b BEFORE UPDATE ON main.items WHEN OLD.id = 'b'
      BEGIN SELECT RAISE(IGNORE); END`);

    let thrown: unknown;
    try {
      journal.apply([submitChange(journal.get('a')!), submitChange(journal.get('b')!)]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StaleTransitionError);
    expect(thrown).toMatchObject({
      itemId: 'b',
      event: 'submit',
      expected: 'pending',
      code: 'GBATCH_STALE_TRANSITION',
    });
    expect(itemRows(journal)).toEqual(rows);
    expect(eventRows(journal)).toEqual([]);
  });
});

describe('Journal.spend', () => {
  it('tracks reservations and actual charges through apply deltas, equal to a fresh SUM at every step', () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('a', { estimateUsd: 0.1 }),
      entry('b', { estimateUsd: 0.2 }),
      entry('c', { estimateUsd: 0.3 }),
      entry('v', { kind: 'video', estimateUsd: 0.414778 }),
    ]);
    expect(journal.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
    const check = (expected: { reservedUsd: number; actualUsd: number }): void => {
      expect(journal.spend()).toEqual(expected);
      expect(freshSum(journal)).toEqual(expected);
    };

    journal.apply(['a', 'b', 'c', 'v'].map((id) => submitChange(journal.get(id)!)));
    check({ reservedUsd: 1.014778, actualUsd: 0 });

    journal.apply([{ id: 'a', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.0345 } }]);
    check({ reservedUsd: 0.914778, actualUsd: 0.0345 });

    journal.apply([
      { id: 'b', event: 'reject', patch: { reservedUsd: 0 } },
      { id: 'c', event: 'lose', patch: { lastError: { message: 'timeout' } } }, // reservation held
      { id: 'v', event: 'accept', patch: { taskId: 't-v' } },
    ]);
    check({ reservedUsd: 0.714778, actualUsd: 0.0345 });

    journal.apply([{ id: 'v', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.43 } }]);
    check({ reservedUsd: 0.3, actualUsd: 0.4645 });

    // A refused batch changes nothing; annotate is reflected too.
    expect(() =>
      journal.apply([
        { id: 'c', event: 'resubmit', patch: { reservedUsd: 0 } },
        { id: 'a', event: 'submit' },
      ]),
    ).toThrow();
    check({ reservedUsd: 0.3, actualUsd: 0.4645 });
    journal.annotate('v', { actualUsd: 0.5 }, 'correction');
    check({ reservedUsd: 0.3, actualUsd: 0.5345 });

    const other = tmp.open();
    expect(other.spend()).toEqual(journal.spend());
  });
});

describe('Journal.iterate', () => {
  function seedTen(journal: ReturnType<typeof tmp.open>): void {
    ingest(
      journal,
      Array.from({ length: 10 }, (_, i) => entry(`r${i}`, { kind: i % 2 === 0 ? 'chat' : 'video' })),
    );
    journal.apply(['r0', 'r1', 'r4', 'r7', 'r8'].map((id) => submitChange(journal.get(id)!)));
  }

  it('pages over more rows than pageSize, in manifest order, with and without filters', () => {
    const journal = tmp.open();
    seedTen(journal);
    const ids = (gen: Iterable<{ id: string }>): string[] => [...gen].map((i) => i.id);

    expect(ids(journal.iterate({}, 3))).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9']);
    expect(ids(journal.iterate({ states: ['pending'] }, 3))).toEqual(['r2', 'r3', 'r5', 'r6', 'r9']);
    expect(ids(journal.iterate({ kinds: ['video'] }, 3))).toEqual(['r1', 'r3', 'r5', 'r7', 'r9']);
    expect(ids(journal.iterate({ states: ['submitting'], kinds: ['chat'] }, 3))).toEqual(['r0', 'r4', 'r8']);
    expect(ids(journal.iterate({ states: ['submitting', 'pending'], kinds: ['chat', 'video'] }, 3))).toHaveLength(10);
    expect(ids(journal.iterate({ states: ['downloaded'] }, 3))).toEqual([]);
    // Exactly one page's worth, and pages of one row.
    expect(ids(journal.iterate({ kinds: ['chat'] }, 5))).toEqual(['r0', 'r2', 'r4', 'r6', 'r8']);
    expect(ids(journal.iterate({}, 1))).toHaveLength(10);
    expect(ids(journal.iterate({ states: ['pending'] }, 3))).toEqual(journal.list(['pending']).map((i) => i.id));
  });

  it('reads page by page: a row changed after the first page was read shows its new state', () => {
    const journal = tmp.open();
    seedTen(journal);
    const seen: Array<[string, string]> = [];
    for (const item of journal.iterate({}, 3)) {
      seen.push([item.id, item.state]);
      if (item.id === 'r2') journal.apply([submitChange(journal.get('r5')!)]);
    }
    expect(seen.find(([id]) => id === 'r5')).toEqual(['r5', 'submitting']);
  });
});

describe('Journal.markStored', () => {
  function answeredItems(journal: ReturnType<typeof tmp.open>, ids: string[]): void {
    ingest(
      journal,
      ids.map((id) => entry(id)),
    );
    journal.apply(ids.map((id) => submitChange(journal.get(id)!)));
    journal.apply(
      ids.map((id) => ({ id, event: 'complete' as const, patch: { response: { text: id }, responseStatus: 200 } })),
    );
  }

  it('writes what applying `store` to each item writes: state, output path, one event each', () => {
    const clock = new ManualClock(20_000);
    const bulk = tmp.open('bulk.db', { clock });
    const single = tmp.open('single.db', { clock });
    for (const journal of [bulk, single]) answeredItems(journal, ['a', 'b']);

    bulk.markStored(['a', 'b'], 'out/results.jsonl', { file: 'results.jsonl' });
    single.apply(
      ['a', 'b'].map((id) => ({
        id,
        event: 'store' as const,
        patch: { outputPath: 'out/results.jsonl' },
        detail: { file: 'results.jsonl' },
      })),
    );

    const rows = (journal: typeof bulk) => itemRows(journal).map(({ source_line: _line, ...row }) => row);
    expect(rows(bulk)).toEqual(rows(single));
    expect(eventRows(bulk)).toEqual(eventRows(single));
    expect(bulk.get('b')).toMatchObject({ state: 'downloaded', outputPath: 'out/results.jsonl' });
  });

  it('refuses the whole batch when one item is no longer succeeded', () => {
    const journal = tmp.open();
    answeredItems(journal, ['a', 'b']);
    journal.markStored(['b'], 'out/results.jsonl', {});
    const before = { items: itemRows(journal), events: eventRows(journal) };

    expect(() => journal.markStored(['a', 'b'], 'out/results.jsonl', {})).toThrow(StaleTransitionError);
    expect({ items: itemRows(journal), events: eventRows(journal) }).toEqual(before);
  });
});
