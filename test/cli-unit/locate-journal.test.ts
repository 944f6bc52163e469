import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locateJournal } from '../../src/cli/locate-journal.js';
import { UsageError } from '../../src/cli/options.js';
import { useTempDir } from '../journal/helpers.js';

const tmp = useTempDir('gbatch-locate-');
let previous: string;
beforeEach(() => {
  previous = process.cwd();
  process.chdir(tmp.dir());
});
afterEach(() => process.chdir(previous));

const touch = (file: string): void => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, '');
};

describe('locateJournal (relative to the working directory)', () => {
  it('--state wins when it exists, and is refused when it does not', () => {
    touch('elsewhere/j.db');
    touch('state/other.db');
    expect(locateJournal('elsewhere/j.db', 'jobs/other.json')).toBe('elsewhere/j.db');
    expect(() => locateJournal('missing.db', undefined)).toThrow('missing.db: no such journal');
  });

  it('a job name maps to state/<name>.db', () => {
    touch('state/nightly.db');
    expect(locateJournal(undefined, 'jobs/nightly.json')).toBe(join('state', 'nightly.db'));
    expect(() => locateJournal(undefined, 'jobs/never-ran.json')).toThrow(/state\/never-ran\.db: no journal for jobs\/never-ran\.json yet/);
  });

  it('without either, the only journal in state/; none or several is a UsageError', () => {
    expect(() => locateJournal(undefined, undefined)).toThrow(UsageError);
    expect(() => locateJournal(undefined, undefined)).toThrow(/No journal found in state\//);
    touch('state/a.db');
    touch('state/a.db-wal');
    expect(locateJournal(undefined, undefined)).toBe(join('state', 'a.db'));
    touch('state/b.db');
    expect(() => locateJournal(undefined, undefined)).toThrow('Several journals in state/ (a.db, b.db); pass --state <file.db>');
  });
});
