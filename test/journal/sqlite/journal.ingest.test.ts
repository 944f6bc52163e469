import { ManualClock } from '../../../src/core/clock.js';
import { describe, expect, it } from 'vitest';
import { entry, eventRows, ingest, itemRows, useTempDir } from '../../helpers/journal-fixtures.js';
import { IngestSession } from '../../helpers/journal-raw.js';

const tmp = useTempDir();

describe('IngestSession', () => {
  it('inserts new rows in manifest order with their request, hash, source and estimate', () => {
    const clock = new ManualClock(5_000);
    const journal = tmp.open('job.db', { clock });
    const rows = [
      entry('c1', { sourceLine: 1 }),
      entry('v1', { kind: 'video', sourceLine: 2, hasReferenceVideo: true, estimateUsd: 0.75 }),
      entry('r1', { kind: 'responses', sourceLine: 3 }),
    ];
    const summary = ingest(journal, rows);

    expect(summary).toEqual({ inserted: 3, unchanged: 0, replaced: 0, conflicts: [] });
    const items = [...journal.iterate()];
    expect(items.map((i) => i.id)).toEqual(['c1', 'v1', 'r1']);
    expect(items.map((i) => i.state)).toEqual(['pending', 'pending', 'pending']);
    const video = journal.get('v1')!;
    expect(video).toMatchObject({
      kind: 'video',
      model: 'video-fast',
      request: rows[1]!.request,
      contentHash: 'hash-of-v1',
      sourceFile: 'manifest.jsonl',
      sourceLine: 2,
      resolution: '720p',
      hasReferenceVideo: true,
      estimateUsd: 0.75,
      reservedUsd: 0,
      attempts: 0,
      actualUsd: null,
      lastError: null,
      updatedAt: 5_000,
    });
    expect(journal.counts().pending).toBe(3);
    // Ingest is not a transition: no event rows.
    expect(eventRows(journal)).toEqual([]);
  });

  it('reports identical rows as unchanged and leaves them exactly as they were', () => {
    const clock = new ManualClock(1_000);
    const journal = tmp.open('job.db', { clock });
    ingest(journal, [entry('a', { sourceLine: 1 }), entry('b', { sourceLine: 2 })]);
    const before = itemRows(journal);

    clock.tick(60_000);
    const summary = ingest(journal, [
      entry('a', { sourceLine: 1 }),
      entry('b', { sourceLine: 2 }),
      entry('c', { sourceLine: 3 }),
    ]);

    expect(summary).toEqual({ inserted: 1, unchanged: 2, replaced: 0, conflicts: [] });
    expect(itemRows(journal).slice(0, 2)).toEqual(before);
  });

  it('refuses the same id with different content, and a rollback leaves the journal exactly as before', () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('a', { sourceLine: 1, sourceFile: 'old.jsonl' }),
      entry('b', { sourceLine: 2, sourceFile: 'old.jsonl' }),
    ]);
    journal.apply([{ id: 'a', event: 'submit', patch: { attempts: 1, reservedUsd: 0.01 } }]);
    const rowsBefore = itemRows(journal);
    const eventsBefore = eventRows(journal);
    const spendBefore = journal.spend();

    const session = new IngestSession(journal);
    session.add([
      entry('new-1', { sourceFile: 'new.jsonl', sourceLine: 1 }),
      entry('a', { contentHash: 'changed', sourceFile: 'new.jsonl', sourceLine: 2 }),
      entry('b', { contentHash: 'changed-too', sourceFile: 'new.jsonl', sourceLine: 3 }),
    ]);
    expect(session.progress.conflicts).toEqual([
      { id: 'a', file: 'new.jsonl', line: 2, journalFile: 'old.jsonl', journalLine: 1 },
      { id: 'b', file: 'new.jsonl', line: 3, journalFile: 'old.jsonl', journalLine: 2 },
    ]);
    const summary = session.rollback();
    expect(summary.inserted).toBe(1);

    expect(itemRows(journal)).toEqual(rowsBefore);
    expect(eventRows(journal)).toEqual(eventsBefore);
    expect(journal.get('new-1')).toBeUndefined();
    expect(journal.spend()).toEqual(spendBefore);
    expect(() => session.add([entry('late')])).toThrow(/closed/);
  });

  it('an ingest changes no spend: the spend it read before still agrees with a fresh sum afterwards', () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('sent', { sourceLine: 1 }),
      entry('fixme', {
        state: 'invalid',
        model: null,
        request: null,
        contentHash: 'broken',
        sourceLine: 2,
        estimateUsd: 0,
      }),
    ]);
    journal.apply([{ id: 'sent', event: 'submit', patch: { attempts: 1, reservedUsd: 0.25 } }]);
    const before = journal.spend();

    const summary = ingest(journal, [
      entry('sent', { sourceLine: 1 }),
      entry('fixme', { sourceLine: 2 }),
      entry('new', { sourceLine: 3, estimateUsd: 0.5 }),
    ]);

    expect(summary).toMatchObject({ inserted: 1, unchanged: 1, replaced: 1 });
    expect(before).toEqual({ reservedUsd: 0.25, actualUsd: 0 });
    expect(journal.spend()).toEqual(before);
    const reader = tmp.open('job.db', { readonly: true });
    expect(reader.spend()).toEqual(before);
  });

  it('replaces an invalid row when its corrected version arrives', () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('fixme', {
        state: 'invalid',
        model: null,
        request: null,
        contentHash: 'broken',
        sourceLine: 4,
        estimateUsd: 0,
        lastError: { message: 'prompt: must not be blank' },
      }),
    ]);
    expect(journal.get('fixme')).toMatchObject({
      state: 'invalid',
      lastError: { message: 'prompt: must not be blank' },
    });

    const corrected = entry('fixme', { contentHash: 'fixed', sourceLine: 9, estimateUsd: 0.02 });
    const summary = ingest(journal, [corrected]);

    expect(summary).toEqual({ inserted: 0, unchanged: 0, replaced: 1, conflicts: [] });
    expect(journal.get('fixme')).toMatchObject({
      state: 'pending',
      model: 'chat-small',
      request: corrected.request,
      contentHash: 'fixed',
      sourceLine: 9,
      estimateUsd: 0.02,
      lastError: null,
    });
    expect(journal.counts()).toMatchObject({ pending: 1, invalid: 0 });
  });

  it('holds one write transaction for the whole session: commit makes all rows visible to another reader at once', () => {
    const writer = tmp.open();
    const reader = tmp.open();
    const session = new IngestSession(writer);
    session.add([entry('x')]);
    session.add([entry('y')]);
    expect(reader.get('x')).toBeUndefined();
    session.commit();
    expect([...reader.iterate()].map((i) => i.id)).toEqual(['x', 'y']);
  });
});
