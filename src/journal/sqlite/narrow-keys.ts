// The item row's two widest ingest-time columns kept narrow (schema version 8, issue 11): every transition
// rewrites the page of its row, so a narrower row means fewer pages per commit.
// - `content_hash`, a sha256 in 64 hex characters, is stored as its 32 bytes in `content_key`;
// - `source_file`, the same manifest path on every row of a file, is stored once in `item_texts` and
//   the row holds its id (`source_ref`).
// Their inline columns are then '' (both are NOT NULL). An inline value that is not '' wins: rows written
// before, a hash that is not a sha256 (an invalid row's), an operator's plain UPDATE.
import type Database from 'better-sqlite3';

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const CONTENT_HASH_READ =
  "CASE WHEN items.content_hash != '' THEN items.content_hash ELSE lower(hex(items.content_key)) END";
export const SOURCE_FILE_READ =
  "CASE WHEN items.source_file != '' THEN items.source_file ELSE (SELECT t.text FROM item_texts t WHERE t.id = items.source_ref) END";

/** True when the journal has the narrow columns (a read-only journal of an older gbatch may not). */
export function hasNarrowKeys(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_info('items') WHERE name = 'content_key'").get() !== undefined;
}

/**
 * `content_hash, state, source_file, source_line`, the listing and the money judgeAgainstPrior reads (and
 * `seq`, when asked) of an item as ingest judges it, by id.
 */
export function priorQuery(db: Database.Database, withSeq = false): string {
  const seq = withSeq ? ', seq' : '';
  const listing =
    db.prepare("SELECT 1 FROM pragma_table_info('items') WHERE name = 'orphan'").get() !== undefined
      ? 'orphan'
      : '0 AS orphan';
  const judged = `state, ${listing}, reserved_usd, actual_usd`;
  return hasNarrowKeys(db)
    ? `SELECT ${CONTENT_HASH_READ} AS content_hash, ${judged}, ${SOURCE_FILE_READ} AS source_file, source_line${seq} FROM items WHERE id = ?`
    : `SELECT content_hash, ${judged}, source_file, source_line${seq} FROM items WHERE id = ?`;
}

/** The values an ingest writes for a hash and a manifest path: [content_hash, content_key, source_file, source_ref]. */
export class NarrowKeys {
  private readonly ids = new Map<string, number>();
  private readonly find: Database.Statement<[string], { id: number }>;
  private readonly add: Database.Statement<[string]>;

  /** Lives for one ingest transaction: ids it hands out are forgotten with it. */
  constructor(db: Database.Database) {
    this.find = db.prepare('SELECT id FROM item_texts WHERE text = ?');
    this.add = db.prepare('INSERT INTO item_texts (text) VALUES (?)');
  }

  values(contentHash: string, sourceFile: string): [string, Buffer | null, string, number | null] {
    const narrowHash = SHA256_HEX.test(contentHash);
    return [
      narrowHash ? '' : contentHash,
      narrowHash ? Buffer.from(contentHash, 'hex') : null,
      '',
      this.textId(sourceFile),
    ];
  }

  private textId(text: string): number {
    const known = this.ids.get(text);
    if (known !== undefined) return known;
    const id = this.find.get(text)?.id ?? Number(this.add.run(text).lastInsertRowid);
    this.ids.set(text, id);
    return id;
  }
}
