// The SQLite journal's migrator: applies the steps of migrations/ (schema-steps.ts) a journal has not
// applied yet; its version is SQLite's user_version.
import type Database from 'better-sqlite3';
import { NewerSchemaError } from '../errors.js';
import { MIGRATIONS } from './schema-steps.js';

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Refuses a journal written by a newer gbatch, for a reader too: its columns may mean what this one cannot know. */
export function refuseNewer(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new NewerSchemaError(file, version, SCHEMA_VERSION);
}

/**
 * Brings the database to SCHEMA_VERSION; refuses a journal written by a newer gbatch. The version is
 * read again under the write lock (BEGIN IMMEDIATE): two processes creating the same journal at once
 * would otherwise both see version 0 and both create the tables.
 */
export function migrate(db: Database.Database, file: string): void {
  const check = (version: number): void => {
    if (version > SCHEMA_VERSION) throw new NewerSchemaError(file, version, SCHEMA_VERSION);
  };
  const seen = db.pragma('user_version', { simple: true }) as number;
  check(seen);
  if (seen === SCHEMA_VERSION) return;
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    check(current);
    for (let version = current; version < SCHEMA_VERSION; version++) db.exec(MIGRATIONS[version]!);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
