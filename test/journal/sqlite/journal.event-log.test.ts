// Issue 11: events are appended to a narrow log (schema 10, event-log.ts): a code for the event, its
// states and a short detail; the view `events` and every reader see the same log as before.
import { describe, expect, it } from 'vitest';
import { eventLog } from '../../../src/journal/event-log.js';
import type { EventRow } from '../../../src/journal/event-records.js';
import {
  entry,
  eventRows,
  ingest,
  inlineEventLog,
  withoutItemMeta,
  submitChange,
  useTempDir,
} from '../../helpers/journal-fixtures.js';
import { rawDb, SCHEMA_VERSION, openSqliteFile } from '../../helpers/journal-raw.js';

const tmp = useTempDir();
const LONG = { attempt: 1, actualUsd: 0.0000114, note: 'a detail longer than the shared ones' };

describe('the narrow event log (schema 10)', () => {
  it('stores a code per event and a short detail once, and reads every event back as written', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b')]);
    journal.apply([submitChange(journal.get('a')!), submitChange(journal.get('b')!)]);
    journal.apply([{ id: 'a', event: 'complete', patch: { response: { ok: 1 } }, detail: LONG }]);
    journal.markStored(['a'], '/out/results.jsonl', { file: 'results.jsonl' });
    journal.apply([{ id: 'b', event: 'lose', detail: { reason: 'interrupted' } }]);

    const raw = rawDb(journal).prepare('SELECT item_id, kind, detail FROM event_log ORDER BY seq').all() as Array<{
      item_id: string;
      kind: number;
      detail: string | null;
    }>;
    expect(raw.map((r) => r.detail)).toEqual([null, null, JSON.stringify(LONG), null, null]);
    expect(raw[0]!.kind).toBe(raw[1]!.kind); // two submits of attempt 1: one code
    expect((rawDb(journal).prepare('SELECT COUNT(*) AS n FROM event_kinds').get() as { n: number }).n).toBe(4);
    expect(journal.events('a').map(({ event, from, to, detail }) => ({ event, from, to, detail }))).toEqual([
      { event: 'submit', from: 'pending', to: 'submitting', detail: { attempt: 1 } },
      { event: 'complete', from: 'submitting', to: 'succeeded', detail: LONG },
      { event: 'store', from: 'succeeded', to: 'downloaded', detail: { file: 'results.jsonl' } },
    ]);
    expect(eventRows(journal).map((e) => [e.item_id, e.event, e.to_state])).toEqual([
      ['a', 'submit', 'submitting'],
      ['b', 'submit', 'submitting'],
      ['a', 'complete', 'succeeded'],
      ['a', 'store', 'downloaded'],
      ['b', 'lose', 'uncertain'],
    ]);
    const store = journal.store;
    expect([...(await store.lastSubmitTimes(['a', 'b', 'none'])).keys()].sort()).toEqual(['a', 'b']);
  });

  it('a rolled-back transaction forgets the codes it added: a later event is not lost', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b')]);
    // The second change is illegal (b is pending): the batch, and the code its first change added, roll back.
    expect(() => journal.apply([submitChange(journal.get('a')!, 7), { id: 'b', event: 'complete' }])).toThrow();
    journal.apply([submitChange(journal.get('a')!, 7)]);
    expect(journal.events('a').map((e) => e.detail)).toEqual([{ attempt: 7 }]);
  });

  it('an older journal (schema 9, events inline) keeps its events; new ones follow them, and readers see both', async () => {
    const first = tmp.open();
    ingest(first, [entry('a'), entry('b')]);
    first.apply([submitChange(first.get('a')!), submitChange(first.get('b')!)]);
    first.apply([{ id: 'a', event: 'lose' }]);
    first.close();
    const db = openSqliteFile(`${tmp.dir()}/job.db`);
    withoutItemMeta(db);
    inlineEventLog(db);
    db.exec('DROP INDEX items_orphaned; ALTER TABLE items DROP COLUMN orphan;');
    db.pragma('user_version = 9');
    const before = db.prepare('SELECT * FROM events ORDER BY seq').all() as EventRow[];
    db.close();

    let now = 5_000_000_000_000;
    const journal = tmp.open('job.db', { clock: { now: () => now } });
    expect(rawDb(journal).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(rawDb(journal).prepare('SELECT * FROM events_inline ORDER BY seq').all()).toEqual(before);
    expect(eventRows(journal)).toEqual(before);
    journal.apply([{ id: 'a', event: 'abandon' }]);
    now += 1;
    journal.apply([{ id: 'b', event: 'lose' }]);
    journal.apply([{ id: 'b', event: 'resubmit' }]);
    journal.apply([submitChange(journal.get('b')!, 2)]);

    const rows = eventRows(journal);
    expect(rows.slice(0, before.length)).toEqual(before);
    expect(rows.slice(before.length).map((e) => e.event)).toEqual(['abandon', 'lose', 'resubmit', 'submit']);
    expect(rows.map((e) => e.seq)).toEqual([...rows.map((e) => e.seq as number)].sort((x, y) => x - y));
    expect(journal.events('a').map((e) => e.event)).toEqual(['submit', 'lose', 'abandon']);
    const store = journal.store;
    const times = await store.lastSubmitTimes(['a', 'b']);
    expect(times.get('b')).toBe(now); // the new submit, not the old one
    expect(times.get('a')).toBe(before.find((e) => e.item_id === 'a')!.at);
    expect(await store.abandonedWhileUncertain(['a'])).toEqual(new Set(['a']));
    // Read in pages of 2 (one page spans the old and the new log): every event once, in seq order, as the view shows
    // it.
    const paged = [];
    for await (const e of eventLog(store, 2)) paged.push(e);
    expect(paged.map((e) => [e.seq, e.itemId, e.at, e.event, e.from, e.to, e.detail])).toEqual(
      rows.map((r) => {
        const row = r as unknown as EventRow;
        return [
          row.seq,
          row.item_id,
          row.at,
          row.event,
          row.from_state,
          row.to_state,
          row.detail === null ? null : JSON.parse(row.detail),
        ];
      }),
    );
  });
});
