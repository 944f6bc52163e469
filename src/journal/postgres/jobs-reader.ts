// Every job of one PostgreSQL journal read through one pool (a dashboard of many jobs): each job's
// read-only queries share its connections, so fifty jobs do not open fifty pools.
import type pg from 'pg';
import type { JournalQueries } from '../store.js';
import { redactDatabaseUrl } from './database-url.js';
import { connectPool } from './pool.js';
import { PostgresJournalStore } from './postgres-store.js';
import { SCHEMA_VERSION, schemaVersion } from './schema.js';
import { NewerSchemaError } from '../errors.js';

export class PgJobsReader {
  private constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
  ) {}

  static async open(url: string): Promise<PgJobsReader> {
    const pool = await connectPool(url);
    const location = redactDatabaseUrl(url);
    try {
      const version = await schemaVersion(pool);
      if (version > SCHEMA_VERSION) throw new NewerSchemaError(location, version, SCHEMA_VERSION);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
    return new PgJobsReader(pool, location);
  }

  /** The jobs, most recently changed first; none while the schema is not there. */
  async jobNames(): Promise<string[]> {
    if ((await schemaVersion(this.pool)) === 0) return [];
    const found = await this.pool.query<{ name: string }>('SELECT name FROM jobs ORDER BY updated_at DESC, name');
    return found.rows.map((row) => row.name);
  }

  queries(job: string): Promise<JournalQueries> {
    return PostgresJournalStore.reading(this.pool, this.location, job);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
