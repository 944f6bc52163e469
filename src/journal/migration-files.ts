// An adapter's schema steps are numbered .sql files in its migrations/ folder (001-initial.sql, ...),
// applied in order, each once: a journal's version is how many it has applied. Append new steps;
// never edit a shipped one. The bundle embeds them (scripts/bundle.mjs reads them with this function).
import { readdirSync, readFileSync } from 'node:fs';

const STEP_FILE = /^(\d{3})-[a-z0-9-]+\.sql$/;

/** The steps in `folder`, in order; a gap or a repeated number is a packaging bug, refused at once. */
export function readMigrations(folder: URL): string[] {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort();
  return files.map((name, index) => {
    const number = STEP_FILE.exec(name)?.[1];
    if (number === undefined || Number(number) !== index + 1) {
      const expected = `${String(index + 1).padStart(3, '0')}-<name>.sql`;
      throw new Error(`${new URL(name, folder).pathname}: schema step ${index + 1} expected (named ${expected})`);
    }
    return readFileSync(new URL(name, folder), 'utf8');
  });
}
