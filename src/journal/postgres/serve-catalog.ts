// The serve catalog in a PostgreSQL journal (its serve_files and serve_batches tables).
import type pg from 'pg';
import { catalogBatchOf, catalogFileOf, type CatalogBatchRow, type CatalogFileRow } from '../serve-catalog.js';
import type { CatalogBatch, CatalogFile, CatalogPage, ServeCatalog } from '../serve-catalog.js';
import { connectPool } from './pool.js';
import { migrate } from './schema.js';

export class PostgresServeCatalog implements ServeCatalog {
  readonly adapter = 'postgres';

  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string): Promise<PostgresServeCatalog> {
    const pool = await connectPool(url);
    try {
      await migrate(pool, new URL(url).host);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PostgresServeCatalog(pool);
  }

  async addFile(file: CatalogFile): Promise<void> {
    await this.pool.query('INSERT INTO serve_files (id, owner, created_at, record) VALUES ($1, $2, $3, $4)', [
      file.id,
      file.owner,
      file.createdAt,
      JSON.stringify(file.record),
    ]);
  }

  async file(id: string): Promise<CatalogFile | undefined> {
    const { rows } = await this.pool.query<CatalogFileRow>('SELECT * FROM serve_files WHERE id = $1', [id]);
    return rows[0] && catalogFileOf(rows[0]);
  }

  async files(owner: string, page: CatalogPage): Promise<CatalogFile[]> {
    return ((await this.page('serve_files', owner, page)) as CatalogFileRow[]).map(catalogFileOf);
  }

  async deleteFile(id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM serve_files WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }

  async addBatch(batch: CatalogBatch): Promise<void> {
    await this.pool.query(
      'INSERT INTO serve_batches (id, owner, status, created_at, record) VALUES ($1, $2, $3, $4, $5)',
      [batch.id, batch.owner, batch.status, batch.createdAt, JSON.stringify(batch.record)],
    );
  }

  async batch(id: string): Promise<CatalogBatch | undefined> {
    const { rows } = await this.pool.query<CatalogBatchRow>('SELECT * FROM serve_batches WHERE id = $1', [id]);
    return rows[0] && catalogBatchOf(rows[0]);
  }

  async batches(owner: string, page: CatalogPage): Promise<CatalogBatch[]> {
    return ((await this.page('serve_batches', owner, page)) as CatalogBatchRow[]).map(catalogBatchOf);
  }

  async updateBatch(batch: CatalogBatch, from?: readonly string[]): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE serve_batches SET status = $1, record = $2 WHERE id = $3${from ? ' AND status = ANY($4)' : ''}`,
      [batch.status, JSON.stringify(batch.record), batch.id, ...(from ? [from] : [])],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async batchesIn(statuses: readonly string[]): Promise<CatalogBatch[]> {
    const { rows } = await this.pool.query<CatalogBatchRow>(
      'SELECT * FROM serve_batches WHERE status = ANY($1) ORDER BY seq',
      [statuses],
    );
    return rows.map(catalogBatchOf);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async page(table: 'serve_files' | 'serve_batches', owner: string, page: CatalogPage): Promise<unknown[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${table} WHERE owner = $1
        AND seq < COALESCE((SELECT seq FROM ${table} WHERE id = $2 AND owner = $1), CASE WHEN $2::text IS NULL THEN 9223372036854775807 ELSE 0 END)
        ORDER BY seq DESC LIMIT $3`,
      [owner, page.after ?? null, page.limit],
    );
    return rows;
  }
}
