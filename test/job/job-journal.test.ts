// The journal a job stands for, by the rule `run` and every operator command share.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { jobJournal } from '../../src/job/job-journal.js';
import { resolveJob } from '../../src/job/job.js';
import { UsageError } from '../../src/job/options.js';
import { useTempDir } from '../helpers/journal-fixtures.js';

const tmp = useTempDir('gbatch-jobjournal-');
let previous: string;
beforeEach(() => {
  previous = process.cwd();
  process.chdir(tmp.dir());
  mkdirSync('jobs');
  writeFileSync('rows.csv', 'id,kind,model,prompt\n');
});
afterEach(() => process.chdir(previous));

const URL = 'postgres://gbatch@db.example/jobs';
const jobFile = (options: Record<string, unknown>, name?: string) =>
  writeFileSync('jobs/x.json', JSON.stringify({ ...(name ? { name } : {}), manifest: '../rows.csv', options }));

it("a job file's journal option wins over GBATCH_JOURNAL_URL; a flag wins over both; else state/<name>.db", () => {
  const env = { GBATCH_JOURNAL_URL: 'postgres://other@db.example/x' };
  jobFile({ journal: URL }, 'nightly');
  expect(jobJournal('jobs/x.json', {}, env)).toEqual({
    name: 'nightly',
    location: URL,
    onServer: true,
    fromEnv: false,
  });
  expect(jobJournal('jobs/x.json', { state: 'st.db' }, env)).toMatchObject({ location: 'st.db', onServer: false });
  jobFile({ journal: '../j/x.db' });
  expect(jobJournal('jobs/x.json', {}, env)).toMatchObject({ name: 'x', location: join('j', 'x.db'), onServer: false });
  jobFile({});
  expect(jobJournal('jobs/x.json', {}, env)).toMatchObject({ location: env.GBATCH_JOURNAL_URL, fromEnv: true });
  expect(jobJournal('jobs/x.json', {}, {})).toMatchObject({ location: join('state', 'x.db') });
  expect(jobJournal('data/my rows.jsonl', {}, {})).toMatchObject({
    name: 'my_rows',
    location: join('state', 'my_rows.db'),
  });
});

it("run finds the same journal; a flag on the command line replaces the job file's, never clashes with it", () => {
  jobFile({ journal: URL });
  for (const cli of [{}, { state: 'st.db' }, { journal: 'postgres://cli@db.example/y' }]) {
    const run = resolveJob('jobs/x.json', cli, new Date(), {});
    expect(run.statePath).toBe(jobJournal('jobs/x.json', cli, {}).location);
    expect(run.journalMoved).toBe(Object.keys(cli).length > 0);
  }
});

it('a job file that cannot be read is a usage error naming it', () => {
  writeFileSync('jobs/x.json', '{ nope');
  expect(() => jobJournal('jobs/x.json', {}, {})).toThrow(UsageError);
  expect(() => jobJournal('jobs/x.json', {}, {})).toThrow(/^jobs\/x\.json: cannot read job file/);
});
