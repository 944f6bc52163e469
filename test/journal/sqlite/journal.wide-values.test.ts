import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  entry,
  ingest,
  inlineEventLog,
  withoutItemMeta,
  submitChange,
  useTempDir,
} from '../../helpers/journal-fixtures.js';
import { rawDb, SCHEMA_VERSION, openSqliteFile } from '../../helpers/journal-raw.js';

const tmp = useTempDir();
const BODY = { id: 'cmpl-1', choices: [{ message: { role: 'assistant', content: 'hi' } }], usage: { total_tokens: 7 } };

function raw(db: Database.Database, id: string): Record<string, unknown> {
  return db
    .prepare(
      'SELECT request, response, price_snapshot, output_path, price_ref, output_ref, seq FROM items WHERE id = ?',
    )
    .get(id) as Record<string, unknown>;
}

function answered(): ReturnType<typeof tmp.open> {
  const journal = tmp.open();
  ingest(journal, [entry('a'), entry('b')]);
  const a = journal.get('a')!;
  journal.apply([submitChange(a)]);
  journal.apply([
    { id: 'a', event: 'complete', patch: { response: BODY, responseStatus: 200, actualUsd: 0.001, reservedUsd: 0 } },
  ]);
  journal.markStored(['a'], '/out/results.jsonl', { file: 'results.jsonl' });
  return journal;
}

describe('wide item values out of line (schema 7)', () => {
  it('keeps request, response, price snapshot and output path out of the row, and reads them back', () => {
    const journal = answered();
    const row = raw(rawDb(journal), 'a');
    expect(row).toMatchObject({ request: null, response: null, price_snapshot: null, output_path: null });
    expect(row.price_ref).toEqual(expect.any(Number));
    expect(row.output_ref).toEqual(expect.any(Number));
    const item = journal.get('a')!;
    expect(item).toMatchObject({
      state: 'downloaded',
      response: BODY,
      outputPath: '/out/results.jsonl',
      request: entry('a').request,
    });
    expect(item.priceSnapshot).toEqual(submitChange(journal.get('b')!).patch.priceSnapshot);
    expect(journal.list(['downloaded']).map((i) => i.response)).toEqual([BODY]);
    const [line] = [...journal.results.iterate(0, 10)];
    expect(line).toMatchObject({ id: 'a', output_path: '/out/results.jsonl' });
    expect(JSON.parse(line!.response!)).toEqual(BODY);
    // One text per distinct value: the second row's snapshot and path reuse them.
    journal.apply([submitChange(journal.get('b')!)]);
    expect(raw(rawDb(journal), 'b').price_ref).toBe(row.price_ref);
    // The snapshot, the path, and the manifest's path (narrow-keys.ts).
    expect((rawDb(journal).prepare('SELECT COUNT(*) AS n FROM item_texts').get() as { n: number }).n).toBe(3);
  });

  it('a plain UPDATE of an inline column wins over the out-of-line value, as on an older journal', () => {
    const journal = answered();
    rawDb(journal).prepare('UPDATE items SET response = NULL, output_path = NULL WHERE id = ?').run('a');
    expect(journal.get('a')).toMatchObject({ response: null, outputPath: null });
    expect(rawDb(journal).prepare('SELECT COUNT(*) AS n FROM item_answers').get()).toEqual({ n: 0 });
    rawDb(journal)
      .prepare('UPDATE items SET price_snapshot = ?, request = ? WHERE id = ?')
      .run('{"inline":true}', '{"r":1}', 'a');
    expect(journal.get('a')).toMatchObject({ priceSnapshot: { inline: true }, request: { r: 1 } });
  });

  it('requeue-style nulls clear the out-of-line values', () => {
    const journal = answered();
    rawDb(journal).prepare("UPDATE items SET state = 'failed' WHERE id = 'a'").run();
    journal.apply([{ id: 'a', event: 'requeue', patch: { response: null, outputPath: null, priceSnapshot: null } }]);
    expect(journal.get('a')).toMatchObject({ state: 'pending', response: null, outputPath: null, priceSnapshot: null });
    expect(raw(rawDb(journal), 'a')).toMatchObject({ price_ref: null, output_ref: null });
  });

  it('an older journal (schema 6, values inline) migrates without moving its rows and reads them back', () => {
    const first = tmp.open();
    ingest(first, [entry('old')]);
    first.close();
    // Back to schema 6 as an older gbatch left it: every value inline, no out-of-line tables.
    const db = openSqliteFile(`${tmp.dir()}/job.db`);
    const request = (db.prepare('SELECT request FROM item_requests').get() as { request: string }).request;
    withoutItemMeta(db);
    inlineEventLog(db);
    db.exec(`UPDATE items SET content_hash = lower(hex(content_key)), source_file = (SELECT text FROM item_texts WHERE id = source_ref);
      ALTER TABLE items DROP COLUMN content_key; ALTER TABLE items DROP COLUMN source_ref;`);
    db.exec(`DROP TRIGGER items_inline_request; DROP TRIGGER items_inline_response; DROP TRIGGER items_inline_price;
      DROP TRIGGER items_inline_output; DROP TRIGGER items_deleted_answer; DROP TABLE item_requests; DROP TABLE item_answers;
      DROP TABLE item_texts; ALTER TABLE items DROP COLUMN price_ref; ALTER TABLE items DROP COLUMN output_ref;
      ALTER TABLE job DROP COLUMN cancelled_at; ALTER TABLE job DROP COLUMN cancel_reason; ALTER TABLE runner_lock DROP COLUMN cancel_seen_at;`);
    db.prepare(
      `UPDATE items SET state = 'downloaded', request = ?, response = '{"old":1}', price_snapshot = '{"p":1}', output_path = '/old'`,
    ).run(request);
    db.exec('DROP INDEX items_orphaned; ALTER TABLE items DROP COLUMN orphan;');
    db.pragma('user_version = 6');
    db.close();

    const journal = tmp.open();
    expect(rawDb(journal).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(journal.get('old')).toMatchObject({
      request: entry('old').request,
      response: { old: 1 },
      priceSnapshot: { p: 1 },
      outputPath: '/old',
    });
    rawDb(journal).prepare("UPDATE items SET state = 'submitting' WHERE id = 'old'").run();
    journal.apply([{ id: 'old', event: 'complete', patch: { response: BODY, outputPath: '/new' } }]);
    expect(journal.get('old')).toMatchObject({ response: BODY, outputPath: '/new', priceSnapshot: { p: 1 } });
  });
});
