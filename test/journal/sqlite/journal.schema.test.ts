import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entry, ingest, itemRows, useTempDir } from '../../helpers/journal-fixtures.js';
import { openSyncJournal, rawDb, SCHEMA_VERSION, openSqliteFile } from '../../helpers/journal-raw.js';

const tmp = useTempDir();
const CORE_TABLES = ['events', 'items', 'job', 'runner_lock'];

function tables(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);
}

describe('journal schema and migrations', () => {
  it('creates the schema on a new file (and its folder), sets user_version and WAL mode', () => {
    const file = join(tmp.dir(), 'nested', 'state', 'job.db');
    const journal = openSyncJournal(file);
    try {
      expect(existsSync(file)).toBe(true);
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
      expect(rawDb(journal).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(rawDb(journal).pragma('journal_mode', { simple: true })).toBe('wal');
      expect(tables(rawDb(journal))).toEqual(expect.arrayContaining(CORE_TABLES));
      const itemColumns = (rawDb(journal).prepare('PRAGMA table_info(items)').all() as Array<{ name: string }>).map(
        (c) => c.name,
      );
      for (const column of [
        'id',
        'request',
        'content_hash',
        'state',
        'task_id',
        'attempts',
        'price_snapshot',
        'estimate_usd',
        'actual_usd',
        'output_path',
        'sha256',
        'bytes',
        'last_error',
      ]) {
        expect(itemColumns).toContain(column);
      }
    } finally {
      journal.close();
    }
  });

  it('a new journal has 2 KB pages; an older one keeps its 4 KB; the WAL is checkpointed at ~33 MB either way (issue 11)', () => {
    const fresh = tmp.open();
    expect(rawDb(fresh).pragma('page_size', { simple: true })).toBe(2048);
    expect(rawDb(fresh).pragma('wal_autocheckpoint', { simple: true })).toBe(16000);
    fresh.close();
    const file = join(tmp.dir(), 'older.db');
    const raw = openSqliteFile(file);
    raw.pragma('page_size = 4096');
    raw.pragma('journal_mode = WAL');
    raw.exec('CREATE TABLE t (x)');
    raw.close();
    const older = openSyncJournal(file);
    try {
      expect(rawDb(older).pragma('page_size', { simple: true })).toBe(4096);
      expect(rawDb(older).pragma('wal_autocheckpoint', { simple: true })).toBe(8000);
    } finally {
      older.close();
    }
  });

  it('reopening an existing journal is idempotent: same version, same tables, rows kept', () => {
    const first = tmp.open();
    ingest(first, [entry('a'), entry('b')]);
    first.saveJob({ name: 'job', manifest: 'm.jsonl', options: { budget: 3 } });
    const before = itemRows(first);
    const schemaBefore = rawDb(first).prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
    first.close();

    for (let i = 0; i < 2; i++) {
      const again = tmp.open();
      expect(rawDb(again).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(rawDb(again).prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()).toEqual(
        schemaBefore,
      );
      expect(itemRows(again)).toEqual(before);
      expect(again.getJob()).toMatchObject({ name: 'job', manifest: 'm.jsonl', options: { budget: 3 } });
      again.close();
    }
  });

  it('refuses a journal written by a newer gbatch, naming the file, and leaves it untouched', () => {
    const file = join(tmp.dir(), 'future.db');
    const raw = openSqliteFile(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();

    expect(() => openSyncJournal(file)).toThrow(file);
    expect(() => openSyncJournal(file)).toThrow(/newer than this gbatch supports/);

    const check = openSqliteFile(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    expect(tables(check)).toEqual([]);
    check.close();
  });

  it('opens read-only for status/report, and refuses a missing file read-only', () => {
    const writer = tmp.open();
    ingest(writer, [entry('only')]);
    writer.close();
    const reader = tmp.open('job.db', { readonly: true });
    expect(reader.get('only')?.state).toBe('pending');
    expect(() => rawDb(reader).exec("UPDATE items SET state = 'failed'")).toThrow(/readonly/i);
    expect(() => openSyncJournal(join(tmp.dir(), 'missing.db'), { readonly: true })).toThrow();
  });

  it('saveJob replaces the single job row and keeps its creation time', () => {
    let now = 1000;
    const journal = tmp.open('job.db', { clock: { now: () => now } });
    journal.saveJob({ name: 'one', manifest: 'a.csv', options: {} });
    now = 2000;
    journal.saveJob({ name: 'two', manifest: 'b.csv', options: { concurrency: 2 } });
    expect(journal.getJob()).toEqual({
      name: 'two',
      manifest: 'b.csv',
      options: { concurrency: 2 },
      createdAt: 1000,
      updatedAt: 2000,
    });
    expect(rawDb(journal).prepare('SELECT COUNT(*) AS n FROM job').get()).toEqual({ n: 1 });
  });
});
