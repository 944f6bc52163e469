// An adapter's schema steps are numbered .sql files in its migrations/ folder (001-initial.sql, ...),
// applied in order, each once: a journal's version is how many it has applied. Append new steps;
// never change what a shipped one leaves. A stored function is defined once, in the adapter's functions/
// folder, and applied after the steps (postgres/schema.ts); the PostgreSQL steps 005, 012, 015, 019 and
// 020 once held its successive bodies, each replaced by the next before the last step ran, so they were
// thinned to their table changes with the end state of every upgrade unchanged (proven by
// test/journal/postgres/schema-upgrades.test.ts). The bundle embeds both (scripts/bundle.mjs reads them
// with these functions).
import { readdirSync, readFileSync } from 'node:fs';

const STEP_FILE = /^(\d{3})-[a-z0-9-]+\.sql$/;

/** The steps in `folder`, in order; a gap or a repeated number is a packaging bug, refused at once. */
export function readMigrations(folder: URL): string[] {
  return sqlFiles(folder).map((name, index) => {
    const number = STEP_FILE.exec(name)?.[1];
    if (number === undefined || Number(number) !== index + 1) {
      const expected = `${String(index + 1).padStart(3, '0')}-<name>.sql`;
      throw new Error(`${new URL(name, folder).pathname}: schema step ${index + 1} expected (named ${expected})`);
    }
    return readFileSync(new URL(name, folder), 'utf8');
  });
}

/** The stored functions' definitions in `folder` (<name>.sql, each a CREATE OR REPLACE), by file name. */
export function readFunctions(folder: URL): string[] {
  return sqlFiles(folder).map((name) => readFileSync(new URL(name, folder), 'utf8'));
}

/** The .sql files in `folder`, by name. */
function sqlFiles(folder: URL): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort();
}
