// The serve catalog in an SQLite journal file (its serve_files and serve_batches tables).
import type Database from 'better-sqlite3';
import { catalogBatchOf, catalogFileOf, type CatalogBatchRow, type CatalogFileRow } from '../serve-catalog.js';
import type { CatalogBatch, CatalogFile, CatalogPage, ServeCatalog } from '../serve-catalog.js';
import { openDatabase } from './open-database.js';
import { migrate } from './schema.js';

export class SqliteServeCatalog implements ServeCatalog {
  readonly adapter = 'sqlite';

  private constructor(private readonly db: Database.Database) {}

  static open(path: string): SqliteServeCatalog {
    const db = openDatabase(path, { readonly: false, sync: 'full' });
    try {
      migrate(db, path);
    } catch (err) {
      db.close();
      throw err;
    }
    return new SqliteServeCatalog(db);
  }

  addFile(file: CatalogFile): Promise<void> {
    this.db
      .prepare('INSERT INTO serve_files (id, owner, created_at, record) VALUES (?, ?, ?, ?)')
      .run(file.id, file.owner, file.createdAt, JSON.stringify(file.record));
    return Promise.resolve();
  }

  file(id: string): Promise<CatalogFile | undefined> {
    const row = this.db.prepare('SELECT * FROM serve_files WHERE id = ?').get(id) as CatalogFileRow | undefined;
    return Promise.resolve(row && catalogFileOf(row));
  }

  files(owner: string, page: CatalogPage): Promise<CatalogFile[]> {
    return Promise.resolve((this.page('serve_files', owner, page) as CatalogFileRow[]).map(catalogFileOf));
  }

  deleteFile(id: string): Promise<boolean> {
    return Promise.resolve(this.db.prepare('DELETE FROM serve_files WHERE id = ?').run(id).changes > 0);
  }

  addBatch(batch: CatalogBatch): Promise<void> {
    this.db
      .prepare('INSERT INTO serve_batches (id, owner, status, created_at, record) VALUES (?, ?, ?, ?, ?)')
      .run(batch.id, batch.owner, batch.status, batch.createdAt, JSON.stringify(batch.record));
    return Promise.resolve();
  }

  batch(id: string): Promise<CatalogBatch | undefined> {
    const row = this.db.prepare('SELECT * FROM serve_batches WHERE id = ?').get(id) as CatalogBatchRow | undefined;
    return Promise.resolve(row && catalogBatchOf(row));
  }

  batches(owner: string, page: CatalogPage): Promise<CatalogBatch[]> {
    return Promise.resolve((this.page('serve_batches', owner, page) as CatalogBatchRow[]).map(catalogBatchOf));
  }

  updateBatch(batch: CatalogBatch, from?: readonly string[]): Promise<boolean> {
    const guard = from ? ` AND status IN (${from.map(() => '?').join(', ')})` : '';
    const changes = this.db
      .prepare(`UPDATE serve_batches SET status = ?, record = ? WHERE id = ?${guard}`)
      .run(batch.status, JSON.stringify(batch.record), batch.id, ...(from ?? [])).changes;
    return Promise.resolve(changes > 0);
  }

  batchesIn(statuses: readonly string[]): Promise<CatalogBatch[]> {
    const rows = this.db
      .prepare(`SELECT * FROM serve_batches WHERE status IN (${statuses.map(() => '?').join(', ')}) ORDER BY seq`)
      .all(...statuses) as CatalogBatchRow[];
    return Promise.resolve(rows.map(catalogBatchOf));
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }

  private page(table: 'serve_files' | 'serve_batches', owner: string, page: CatalogPage): unknown[] {
    const after = page.after
      ? (this.db.prepare(`SELECT seq FROM ${table} WHERE id = ? AND owner = ?`).get(page.after, owner) as
          { seq: number } | undefined)
      : undefined;
    if (page.after && !after) return [];
    return this.db
      .prepare(`SELECT * FROM ${table} WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .all(owner, after?.seq ?? Number.MAX_SAFE_INTEGER, page.limit);
  }
}
