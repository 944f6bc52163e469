// The serve catalog in an SQLite journal file (its serve_files and serve_batches tables).
import type Database from 'better-sqlite3';
import { catalogBatchOf, catalogFileOf, type CatalogBatchRow } from '../serve-catalog.js';
import type { CatalogBatch, CatalogFile, CatalogPage, ServeCatalog } from '../serve-catalog.js';
import { openDatabase } from './open-database.js';
import { migrate } from './schema.js';

type CatalogTable = 'serve_files' | 'serve_batches';

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
    const { id, owner, createdAt, record } = file;
    this.insert('serve_files', { id, owner, created_at: createdAt, record: JSON.stringify(record) });
    return Promise.resolve();
  }

  file(id: string): Promise<CatalogFile | undefined> {
    return Promise.resolve(this.row('serve_files', id, catalogFileOf));
  }

  files(owner: string, page: CatalogPage): Promise<CatalogFile[]> {
    return Promise.resolve(this.page('serve_files', owner, page, catalogFileOf));
  }

  deleteFile(id: string): Promise<boolean> {
    return Promise.resolve(this.db.prepare('DELETE FROM serve_files WHERE id = ?').run(id).changes > 0);
  }

  addBatch(batch: CatalogBatch): Promise<void> {
    const { id, owner, status, createdAt, record } = batch;
    this.insert('serve_batches', { id, owner, status, created_at: createdAt, record: JSON.stringify(record) });
    return Promise.resolve();
  }

  batch(id: string): Promise<CatalogBatch | undefined> {
    return Promise.resolve(this.row('serve_batches', id, catalogBatchOf));
  }

  batches(owner: string, page: CatalogPage): Promise<CatalogBatch[]> {
    return Promise.resolve(this.page('serve_batches', owner, page, catalogBatchOf));
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

  private insert(table: CatalogTable, columns: Record<string, unknown>): void {
    const names = Object.keys(columns);
    this.db
      .prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
      .run(...Object.values(columns));
  }

  private row<Row, T>(table: CatalogTable, id: string, of: (row: Row) => T): T | undefined {
    const row = this.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Row | undefined;
    return row && of(row);
  }

  private page<Row, T>(table: CatalogTable, owner: string, page: CatalogPage, of: (row: Row) => T): T[] {
    const after = page.after
      ? (this.db.prepare(`SELECT seq FROM ${table} WHERE id = ? AND owner = ?`).get(page.after, owner) as
          { seq: number } | undefined)
      : undefined;
    if (page.after && !after) return [];
    const rows = this.db
      .prepare(`SELECT * FROM ${table} WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .all(owner, after?.seq ?? Number.MAX_SAFE_INTEGER, page.limit) as Row[];
    return rows.map(of);
  }
}
