// `gbatch journal migrate`: brings a database's gbatch schema to this version, before any runner starts
// (runners migrate on connect too, under the same lock; this lets an operator do it on purpose).
import { errnoOf } from '../../core/config-error.js';
import { connectionError, redactDatabaseUrl } from './database-url.js';
import { connectPool } from './pool.js';
import { migrate, SCHEMA_VERSION } from './schema.js';

export async function migrateDatabase(url: string): Promise<{ location: string; version: number; applied: number }> {
  const location = redactDatabaseUrl(url);
  const pool = await connectPool(url);
  try {
    const applied = await migrate(pool, location);
    return { location, version: SCHEMA_VERSION, applied };
  } catch (err) {
    throw errnoOf(err) !== undefined ? connectionError(url, err) : err;
  } finally {
    await pool.end().catch(() => {});
  }
}
