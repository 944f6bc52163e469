// Each adapter's schema steps are numbered .sql files, read in order; a gap or a stray name is refused.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readFunctions, readMigrations } from '../../src/journal/migration-files.js';
import { useTempDir } from '../helpers/journal-fixtures.js';

const tmp = useTempDir();

function folder(name: string, files: Record<string, string>): URL {
  const dir = join(tmp.dir(), name);
  mkdirSync(dir, { recursive: true });
  for (const [file, sql] of Object.entries(files)) writeFileSync(`${dir}/${file}`, sql);
  return pathToFileURL(`${dir}/`);
}

describe('schema step files', () => {
  it('are read in the order of their numbers, whatever else the folder holds', () => {
    const steps = folder('ordered', {
      '002-second.sql': 'B;',
      '010-tenth.sql': 'J;',
      '001-first.sql': 'A;',
      'README.md': 'x',
    });
    for (let n = 3; n <= 9; n++) writeFileSync(new URL(`00${n}-step.sql`, steps), `${n};`);
    expect(readMigrations(steps)).toEqual(['A;', 'B;', '3;', '4;', '5;', '6;', '7;', '8;', '9;', 'J;']);
  });

  it('a missing number or a name out of the pattern is refused, naming the file', () => {
    expect(() => readMigrations(folder('gap', { '001-a.sql': 'A;', '003-c.sql': 'C;' }))).toThrow(
      /003-c\.sql: schema step 2 expected/,
    );
    expect(() => readMigrations(folder('name', { '001-a.sql': 'A;', '2-b.sql': 'B;' }))).toThrow(
      /2-b\.sql: schema step 2 expected/,
    );
  });

  it("stored functions' definitions are read in the order of their names, other files left out", () => {
    const functions = folder('functions', { 'b-second.sql': 'B;', 'a-first.sql': 'A;', 'README.md': 'x' });
    expect(readFunctions(functions)).toEqual(['A;', 'B;']);
  });
});
