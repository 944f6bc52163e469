// Opens `gbatch serve`'s catalog in the adapter its location names (the driver loaded only then).
import { isDatabaseUrl } from './open-store.js';
import type { ServeCatalog } from './serve-catalog.js';

/** Opens (and brings to this gbatch's schema) the catalog at a location: an SQLite path or a postgres:// URL. */
export async function openServeCatalog(location: string): Promise<ServeCatalog> {
  if (isDatabaseUrl(location)) {
    const { PostgresServeCatalog } = await import('./postgres/serve-catalog.js');
    return PostgresServeCatalog.open(location);
  }
  const { SqliteServeCatalog } = await import('./sqlite/serve-catalog.js');
  return SqliteServeCatalog.open(location);
}
