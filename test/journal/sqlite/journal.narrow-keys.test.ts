// Issue 11: a new item row keeps its sha256 content hash as 32 bytes and its manifest path once in
// item_texts (schema 9, narrow-keys.ts); every reader sees the same values as before.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  entry,
  ingest,
  inlineEventLog,
  withoutItemMeta,
  itemRows,
  useTempDir,
} from '../../helpers/journal-fixtures.js';
import { rawDb, SCHEMA_VERSION, openSqliteFile } from '../../helpers/journal-raw.js';

const tmp = useTempDir();
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function raw(db: Database.Database, id: string): Record<string, unknown> {
  return db
    .prepare('SELECT content_hash, content_key, source_file, source_ref FROM items WHERE id = ?')
    .get(id) as Record<string, unknown>;
}

describe('narrow content hash and manifest path (schema 9)', () => {
  it('stores a sha256 as 32 bytes and the path once, and reads both back everywhere', async () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('a', { contentHash: sha('a'), sourceFile: '/data/manifest.jsonl' }),
      entry('b', { contentHash: sha('b'), sourceFile: '/data/manifest.jsonl' }),
      entry('bad', { contentHash: 'invalid:bad:3', sourceFile: '/data/manifest.jsonl', state: 'invalid' }),
    ]);
    const a = raw(rawDb(journal), 'a');
    expect(a).toMatchObject({ content_hash: '', source_file: '', source_ref: expect.any(Number) });
    expect((a.content_key as Buffer).toString('hex')).toBe(sha('a'));
    expect(raw(rawDb(journal), 'b').source_ref).toBe(a.source_ref);
    expect(raw(rawDb(journal), 'bad')).toMatchObject({ content_hash: 'invalid:bad:3', content_key: null }); // not a sha256: inline

    expect(journal.get('a')).toMatchObject({ contentHash: sha('a'), sourceFile: '/data/manifest.jsonl' });
    expect(journal.list(['pending']).map((i) => i.contentHash)).toEqual([sha('a'), sha('b')]);
    const priors = await journal.store.priors(['a', 'bad']);
    expect(priors.get('a')).toEqual({
      content_hash: sha('a'),
      state: 'pending',
      orphan: 0,
      reserved_usd: 0,
      actual_usd: null,
      source_file: '/data/manifest.jsonl',
      source_line: expect.any(Number),
    });
    expect(priors.get('bad')).toMatchObject({ content_hash: 'invalid:bad:3', source_file: '/data/manifest.jsonl' });

    // Ingest judges against the value read back: the same row is unchanged, a changed one a conflict.
    const again = ingest(journal, [entry('a', { contentHash: sha('a'), sourceFile: '/data/manifest.jsonl' })]);
    expect(again).toMatchObject({ inserted: 0, unchanged: 1, conflicts: [] });
    const changed = ingest(journal, [
      entry('b', { contentHash: sha('b2'), sourceFile: '/data/other.jsonl', sourceLine: 9 }),
    ]);
    expect(changed.conflicts).toEqual([
      {
        id: 'b',
        file: '/data/other.jsonl',
        line: 9,
        journalFile: '/data/manifest.jsonl',
        journalLine: expect.any(Number),
      },
    ]);
    // An invalid row replaced by a valid one gets the narrow form too.
    ingest(journal, [entry('bad', { contentHash: sha('fixed'), sourceFile: '/data/manifest.jsonl' })]);
    expect(raw(rawDb(journal), 'bad')).toMatchObject({ content_hash: '', source_file: '' });
    expect(journal.get('bad')).toMatchObject({ state: 'pending', contentHash: sha('fixed') });
  });

  it('a plain UPDATE of the inline columns wins, as on an older journal', () => {
    const journal = tmp.open();
    ingest(journal, [entry('a', { contentHash: sha('a'), sourceFile: 'm.jsonl' })]);
    rawDb(journal)
      .prepare("UPDATE items SET content_hash = 'by-hand', source_file = 'moved.jsonl' WHERE id = 'a'")
      .run();
    expect(journal.get('a')).toMatchObject({ contentHash: 'by-hand', sourceFile: 'moved.jsonl' });
  });

  it('an older journal (schema 8, keys inline) migrates keeping every row as it was; new rows are narrow', () => {
    const first = tmp.open();
    ingest(first, [entry('old1', { contentHash: sha('old1') }), entry('old2', { contentHash: sha('old2') })]);
    first.close();
    const db = openSqliteFile(`${tmp.dir()}/job.db`);
    withoutItemMeta(db);
    inlineEventLog(db);
    db.exec(`UPDATE items SET content_hash = lower(hex(content_key)), source_file = (SELECT text FROM item_texts WHERE id = source_ref);
      ALTER TABLE items DROP COLUMN content_key; ALTER TABLE items DROP COLUMN source_ref;`);
    db.exec('DROP INDEX items_orphaned; ALTER TABLE items DROP COLUMN orphan;');
    db.pragma('user_version = 8');
    const before = db.prepare('SELECT * FROM items ORDER BY seq').all();
    db.close();

    const journal = tmp.open();
    expect(rawDb(journal).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(itemRows(journal)).toEqual(
      before.map((row) => ({
        ...(row as object),
        carried_usd: 0,
        content_key: null,
        source_ref: null,
        orphan: 0,
        meta: null,
        submitted_at: null,
        accepted_at: null,
        succeeded_at: null,
        finished_at: null,
        auto_retries: 0,
        download_failures: 0,
      })),
    );
    expect(journal.get('old1')).toMatchObject({ contentHash: sha('old1'), sourceFile: 'manifest.jsonl' });
    expect(
      ingest(journal, [entry('old2', { contentHash: sha('old2') }), entry('new', { contentHash: sha('new') })]),
    ).toMatchObject({ inserted: 1, unchanged: 1 });
    expect(raw(rawDb(journal), 'new')).toMatchObject({ content_hash: '', source_file: '' });
    expect(journal.get('new')).toMatchObject({ contentHash: sha('new'), sourceFile: 'manifest.jsonl' });
  });
});
