// The SQLite journal's schema steps: migrations/NNN-*.sql, in order (the bundle embeds them).
import { readMigrations } from '../migration-files.js';

export const MIGRATIONS: readonly string[] = readMigrations(new URL('./migrations/', import.meta.url));
