import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultJournalFor, journalAndIds, locateJournal } from '../../src/job/locate-journal.js';
import { UsageError } from '../../src/job/options.js';
import { useTempDir } from '../helpers/journal-fixtures.js';

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
    expect(() => locateJournal(undefined, 'jobs/never-ran.json')).toThrow(
      /state\/never-ran\.db: no journal for jobs\/never-ran\.json yet/,
    );
  });

  it('without either, the only journal in state/; none or several is a UsageError', () => {
    expect(() => locateJournal(undefined, undefined)).toThrow(UsageError);
    expect(() => locateJournal(undefined, undefined)).toThrow(/No journal found in state\//);
    touch('state/a.db');
    touch('state/a.db-wal');
    expect(locateJournal(undefined, undefined)).toBe(join('state', 'a.db'));
    touch('state/b.db');
    expect(() => locateJournal(undefined, undefined)).toThrow(
      'Several journals in state/ (a.db, b.db); pass --state <file.db>',
    );
  });
});

describe('journalAndIds (resolve, retry: a job or --state, then item ids)', () => {
  it('with --state every positional is an id', () => {
    touch('elsewhere/j.db');
    expect(journalAndIds('elsewhere/j.db', ['v7', 'v8'])).toEqual({ file: 'elsewhere/j.db', ids: ['v7', 'v8'] });
    expect(() => journalAndIds('missing.db', ['v7'])).toThrow('missing.db: no such journal');
  });

  it('without it the first positional is the job (a name, a job file or a manifest), then the ids', () => {
    touch('state/nightly.db');
    for (const job of ['nightly', 'jobs/nightly.json', 'data/nightly.jsonl']) {
      expect(journalAndIds(undefined, [job, 'v7'])).toEqual({ file: join('state', 'nightly.db'), ids: ['v7'] });
    }
    expect(journalAndIds(undefined, ['nightly'])).toEqual({ file: join('state', 'nightly.db'), ids: [] });
    expect(() => journalAndIds(undefined, ['v7', 'nightly'])).toThrow(/state\/v7\.db: no journal for v7 yet/);
  });

  it('with neither, the only journal in state/', () => {
    touch('state/only.db');
    expect(journalAndIds(undefined, [])).toEqual({ file: join('state', 'only.db'), ids: [] });
  });

  it("defaultJournalFor names the journal `run` uses: state/<name>.db, a job file's own name first", () => {
    expect(defaultJournalFor('demo')).toBe(join('state', 'demo.db'));
    expect(defaultJournalFor('jobs/demo.json')).toBe(join('state', 'demo.db'));
    expect(defaultJournalFor('data/my rows.jsonl')).toBe(join('state', 'my_rows.db'));
    touch('jobs/a.json');
    writeFileSync('jobs/a.json', JSON.stringify({ name: 'nightly', manifest: 'rows.csv' }));
    expect(defaultJournalFor('jobs/a.json')).toBe(join('state', 'nightly.db'));
    writeFileSync('jobs/a.json', '{ not json');
    expect(defaultJournalFor('jobs/a.json')).toBe(join('state', 'a.db'));
  });
});
