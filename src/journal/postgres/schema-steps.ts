// The PostgreSQL journal's schema steps: migrations/NNN-*.sql, in order; and its stored functions'
// definitions: functions/*.sql, applied after the steps (the bundle embeds both).
import { readFunctions, readMigrations } from '../migration-files.js';

export const MIGRATIONS: readonly string[] = readMigrations(new URL('./migrations/', import.meta.url));
export const FUNCTIONS: readonly string[] = readFunctions(new URL('./functions/', import.meta.url));
