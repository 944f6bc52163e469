// `resolve --abandon --not-billed` never releases a request whose billed answer the journal holds (a
// runner received it after it lost its lease, which only PostgreSQL notes): the operator is sent to the
// command that settles it, as `--resubmit` is.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { openStore, type JournalStore } from '../../src/journal/index.js';
import { abandonItem } from '../../src/operate/abandon-item.js';
import { UsageError } from '../../src/job/options.js';
import { pgAvailable, usePgSchema } from '../helpers/postgres.js';
import { ingest, row, submit } from '../journal/conformance/harness.js';

describe.skipIf(!pgAvailable())('abandonItem --not-billed (PostgreSQL)', () => {
  const db = usePgSchema('gbatch_abandon');
  let store: JournalStore;
  let count = 0;
  beforeEach(async () => {
    store = await openStore(db.url(), { job: `job-${++count}`, clock: new ManualClock(1_700_000_000_000) });
    await ingest(store, [row('a', 1), row('b', 2)]);
    await store.applyTransitions([submit('a', 0.02), submit('b', 0.02)]);
    await store.applyTransitions([
      { id: 'a', event: 'lose' },
      { id: 'b', event: 'lose' },
    ]);
    await store.noteUnrecordedAnswers([
      { id: 'a', attempt: 1, answer: { response: { choices: [] }, actualUsd: 0.003, reservedUsd: 0 } },
    ]);
  });
  afterEach(async () => {
    await store.close();
  });

  it('is refused on a row whose answer the journal recorded, naming the command that settles it; nothing changes', async () => {
    await expect(abandonItem(store, 'a', true, 'job')).rejects.toThrow(
      new UsageError(
        "item 'a': the journal holds the answer the gateway gave (and billed) for its request, so it was billed; settle it with `gbatch resolve job a --recorded-answer` instead; nothing changed",
      ),
    );
    expect(await store.get('a')).toMatchObject({ state: 'uncertain', reservedUsd: 0.02 });
    expect(await store.spend()).toEqual({ reservedUsd: 0.04, actualUsd: 0 });
  });

  it('is refused too once the row was abandoned with its bound booked', async () => {
    await abandonItem(store, 'a', false, 'job');
    await expect(abandonItem(store, 'a', true, 'job')).rejects.toThrow(/so it was billed; its bound stays booked/);
    expect(await store.get('a')).toMatchObject({ state: 'failed', reservedUsd: 0.02 });
  });

  it('still releases a row without a recorded answer', async () => {
    await abandonItem(store, 'b', true, 'job');
    expect(await store.get('b')).toMatchObject({ state: 'failed', reservedUsd: 0 });
  });
});
