// What a run whose journal file was deleted or replaced leaves the operator: a copy that never overwrites
// a file, and a few lines listing the sent tasks (capped) and the rows that may have reached the gateway.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalLossReport } from '../../../src/pipeline/ending/journal-rescue.js';
import { entry, forceState, ingest, useTempDir } from '../../helpers/journal-fixtures.js';
import { compareIdentity, fileIdentity, rescueOf, saveJournalCopy, openSqliteFile } from '../../helpers/journal-raw.js';

const tmp = useTempDir();
const NOW = Date.UTC(2026, 10, 23, 18, 30, 5);

describe('journal rescue', () => {
  it('saves a complete copy beside the path, never over an existing file', () => {
    const journal = tmp.open('job.db');
    ingest(journal, [entry('a')]);
    const taken = join(tmp.dir(), 'job.db.recovered-20261123T183005Z.db');
    writeFileSync(taken, "someone else's file");

    const copy = saveJournalCopy(journal, journal.file, NOW);
    expect(copy).toEqual({ path: join(tmp.dir(), 'job.db.recovered-20261123T183005Z-2.db') });
    const saved = openSqliteFile((copy as { path: string }).path, { readonly: true });
    expect(saved.prepare('SELECT id FROM items').all()).toEqual([{ id: 'a' }]);
    saved.close();
  });

  it('lists sent tasks (capped, with a count) and rows that may have reached the gateway, and how to resume', () => {
    const journal = tmp.open('job.db');
    ingest(
      journal,
      Array.from({ length: 25 }, (_, i) => entry(`v${i}`, { kind: 'video' })).concat([entry('c1'), entry('c2')]),
    );
    for (let i = 0; i < 25; i++) forceState(journal, `v${i}`, 'submitted', { task_id: `task_${i}` });
    forceState(journal, 'c1', 'submitting');
    forceState(journal, 'c2', 'uncertain');

    const lines = journalLossReport('/s/job.db', 'replaced', rescueOf(journal, { path: '/s/job.db.recovered-x.db' }));
    expect(lines[0]).toMatch(/^the journal at \/s\/job\.db was replaced by another file while this run was using it/);
    expect(lines[1]).toBe("the run's journal was saved to /s/job.db.recovered-x.db");
    expect(lines[2]).toMatch(
      /^25 row\(s\) were sent and have task ids \(item -> task\): v0 -> task_0, v1 -> task_1, .*v19 -> task_19, \.\.\. and 5 more$/,
    );
    expect(lines[3]).toBe('2 row(s) may have reached the gateway (uncertain): c1, c2');
    expect(lines[4]).toMatch(
      /move the file now at \/s\/job\.db aside, then move \/s\/job\.db\.recovered-x\.db to \/s\/job\.db; never run against the replacement/,
    );
  });

  it('a file identity tells deleted from replaced from unchanged', () => {
    const file = join(tmp.dir(), 'f');
    writeFileSync(file, 'x');
    const opened = fileIdentity(file)!;
    expect(compareIdentity(opened, fileIdentity(file))).toBeUndefined();
    expect(compareIdentity(opened, fileIdentity(join(tmp.dir(), 'gone')))).toBe('deleted');
    expect(compareIdentity(opened, { ...opened, ino: opened.ino + 1 })).toBe('replaced');
    expect(existsSync(file)).toBe(true);
  });
});
