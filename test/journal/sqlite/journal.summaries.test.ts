// A journal written before the summaries (schema 14) gains them on its first writable open: its rows summed, each
// row's times and each video task's time to success dated from its event log, equal to what the log and rows say.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { entry, ingest, itemRows, useTempDir, withoutItemSums } from '../../helpers/journal-fixtures.js';
import { openSyncJournal, rawDb } from '../../helpers/journal-raw.js';
import { recount, summarised } from '../conformance/recount.js';

const tmp = useTempDir();

describe('journal summaries on an older journal (schema 14)', () => {
  it('are built from its rows and event log on its first writable open', async () => {
    const file = join(tmp.dir(), 'old.db');
    const clock = new ManualClock(1_700_000_000_000);
    const journal = openSyncJournal(file, { clock });
    ingest(journal, [
      entry('c1'),
      entry('c2', { model: 'chat-large' }),
      entry('v1', { kind: 'video' }),
      entry('v2', { kind: 'video' }),
    ]);
    const store = journal.store;
    const tick = async (changes: Parameters<typeof store.applyTransitions>[0]) => {
      clock.tick(1000);
      await store.applyTransitions(changes);
    };
    await tick(
      ['c1', 'c2', 'v1', 'v2'].map((id) => ({ id, event: 'submit', patch: { attempts: 1, reservedUsd: 0.01 } })),
    );
    await tick([
      { id: 'c1', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.02, totalTokens: 10 } },
      { id: 'c2', event: 'reject', patch: { reservedUsd: 0, lastError: { message: 'no', code: 'content_policy' } } },
      { id: 'v1', event: 'accept', patch: { taskId: 't1' } },
      { id: 'v2', event: 'accept', patch: { taskId: 't2' } },
    ]);
    await tick([{ id: 'v1', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.5 } }]);
    clock.tick(3000);
    await store.markStored(['c1', 'v1'], 'out', {});
    const expected = await recount(store);
    const rowsBefore = itemRows(journal).map((r) => [
      r.id,
      r.submitted_at,
      r.accepted_at,
      r.succeeded_at,
      r.finished_at,
    ]);
    withoutItemSums(rawDb(journal));
    rawDb(journal).pragma('user_version = 14');
    journal.close();

    // Read-only, it stays as it is: the same figures from its rows and log, the same pages.
    const readonly = openSyncJournal(file, { clock, readonly: true });
    expect(await summarised(readonly.store)).toEqual({ ...expected, times: {} });
    expect(await readonly.store.reportRows(0, 10)).toBeUndefined();
    expect((await readonly.store.rowPage({ errorCode: 'content_policy', limit: 5 })).map((i) => i.id)).toEqual(['c2']);
    expect((await readonly.store.rowPage({ kinds: ['video'], limit: 1 })).map((i) => i.id)).toEqual(['v1']);
    readonly.close();

    const reopened = openSyncJournal(file, { clock });
    expect(await summarised(reopened.store)).toEqual(expected);
    expect(expected.video).toEqual({ count: 1, medianMs: 2000 });
    expect(itemRows(reopened).map((r) => [r.id, r.submitted_at, r.accepted_at, r.succeeded_at, r.finished_at])).toEqual(
      rowsBefore,
    );
    expect(await reopened.store.lastSubmitTimes(['c1', 'v2'])).toEqual(
      new Map([
        ['c1', 1_700_000_001_000],
        ['v2', 1_700_000_001_000],
      ]),
    );
    reopened.close();
  });
});
