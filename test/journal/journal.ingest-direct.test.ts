// The first ingest into an empty journal writes the database file directly (rollback journal), then
// returns to WAL; it falls back to the WAL whenever another connection has the file open.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IngestSession, Journal } from '../../src/journal/index.js';
import { returnToWal } from '../../src/journal/ingest.js';
import { entry, useTempDir } from './helpers.js';

const tmp = useTempDir();
const mode = (journal: Journal) => journal.db.pragma('journal_mode', { simple: true });
const rows = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => entry(`${prefix}${i}`, { sourceLine: i + 1 }));

describe('direct first ingest', () => {
  it('an empty journal: written without the WAL, back in WAL mode after COMMIT, every row there', () => {
    const journal = tmp.open();
    const session = new IngestSession(journal);
    expect(session.direct).toBe(true);
    expect(mode(journal)).toBe('delete');
    session.add(rows(500));
    expect(session.commit().inserted).toBe(500);
    expect(mode(journal)).toBe('wal');
    expect(journal.counts().pending).toBe(500);
    expect(journal.db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('a journal with rows already: the usual WAL path', () => {
    const journal = tmp.open();
    const first = new IngestSession(journal);
    first.add(rows(3));
    first.commit();
    const second = new IngestSession(journal);
    expect(second.direct).toBe(false);
    expect(mode(journal)).toBe('wal');
    second.add(rows(3, 'more'));
    second.commit();
    expect(journal.counts().pending).toBe(6);
  });

  it('another connection open on the file: SQLite keeps WAL mode and the ingest goes through it', () => {
    const journal = tmp.open();
    const reader = Journal.open(journal.file, { readonly: true });
    try {
      expect(reader.counts().pending).toBe(0); // the reader has the file open (and its WAL index mapped)
      const session = new IngestSession(journal);
      expect(session.direct).toBe(false);
      expect(mode(journal)).toBe('wal');
      session.add(rows(10));
      session.commit();
      expect(reader.counts().pending).toBe(10);
    } finally {
      reader.close();
    }
  });

  it('a refused ingest (rollback) leaves the journal empty and in WAL mode', () => {
    const journal = tmp.open();
    const session = new IngestSession(journal);
    session.add(rows(50));
    session.rollback();
    expect(mode(journal)).toBe('wal');
    expect(journal.counts().pending).toBe(0);
  });

  it('a process killed mid-ingest leaves nothing behind: the next open rolls it back and is in WAL mode', () => {
    const file = join(tmp.dir(), 'killed.db');
    const script = `
      const { IngestSession, Journal } = await import(${JSON.stringify(new URL('../../dist/journal/index.js', import.meta.url).href)});
      const journal = Journal.open(${JSON.stringify(file)});
      const session = new IngestSession(journal);
      const request = { model: 'chat-small', messages: [{ role: 'user', content: 'x' }] };
      session.add(Array.from({ length: 20000 }, (_, i) => ({
        id: 'r' + i, kind: 'chat', model: 'chat-small', request, contentHash: 'h' + i, sourceFile: 'm.jsonl', sourceLine: i + 1, state: 'pending',
      })));
      console.log(session.direct ? 'direct' : 'wal');
      process.kill(process.pid, 'SIGKILL');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout.trim()).toBe('direct');
    expect(existsSync(`${file}-journal`)).toBe(true); // the hot rollback journal the kill left

    const journal = Journal.open(file);
    try {
      expect(journal.counts().pending).toBe(0);
      expect(mode(journal)).toBe('wal');
      expect(journal.db.pragma('integrity_check', { simple: true })).toBe('ok');
      const session = new IngestSession(journal);
      session.add(rows(5));
      session.commit();
      expect(journal.counts().pending).toBe(5);
    } finally {
      journal.close();
    }
  });
});

describe('returnToWal', () => {
  const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  const fakeJournal = (answers: Array<string | Error>) => {
    const calls: string[] = [];
    const journal = {
      file: '/state/job.db',
      db: {
        pragma: (sql: string) => {
          calls.push(sql);
          const answer = answers.shift() ?? 'wal';
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
    } as unknown as Journal;
    return { journal, calls };
  };

  it('tries again while another connection holds the switch off', () => {
    const { journal, calls } = fakeJournal([busy(), busy(), 'wal']);
    returnToWal(journal);
    expect(calls).toEqual(Array(3).fill('journal_mode = WAL'));
  });

  it('any other error is not waited out', () => {
    const { journal, calls } = fakeJournal([Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })]);
    expect(() => returnToWal(journal)).toThrow('disk I/O error');
    expect(calls).toHaveLength(1);
  });
});
