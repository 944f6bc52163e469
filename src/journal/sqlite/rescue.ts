// After the journal's file was deleted or replaced under a live run: the run's journal (still open,
// complete) is saved beside the path under a new name, with what it holds that the operator must know.
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { JournalRescue } from '../store.js';

/** Rows named in the rescue's lists; the counts say how many there are in all. */
const LISTED = 20;

function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** A path beside `file` that holds nothing yet: the copy never overwrites a file. */
function freshPath(base: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${base}.db` : `${base}-${n}.db`;
    if (!existsSync(candidate)) return candidate;
  }
}

/** Writes a consistent copy of the open journal; returns its path, or the reason it could not be saved. */
export function saveCopy(db: Database.Database, file: string, now: number): { path: string } | { error: string } {
  const targets = [`${file}.recovered-${stamp(now)}`, join(tmpdir(), `${basename(file)}.recovered-${stamp(now)}`)];
  const errors: string[] = [];
  for (const base of targets) {
    const path = freshPath(base);
    try {
      db.prepare('VACUUM INTO ?').run(path);
      return { path };
    } catch (err) {
      errors.push(`${path}: ${(err as Error).message}`);
    }
  }
  return { error: errors.join('; ') };
}

/** The sent task ids and the rows that may have reached the gateway, with the copy that holds them all. */
export function rescueReport(db: Database.Database, copy: JournalRescue['copy']): JournalRescue {
  const sent = db
    .prepare(`SELECT id, task_id FROM items WHERE task_id IS NOT NULL ORDER BY seq LIMIT ${LISTED}`)
    .all() as Array<{ id: string; task_id: string }>;
  const sentCount = (db.prepare('SELECT COUNT(*) AS n FROM items WHERE task_id IS NOT NULL').get() as { n: number }).n;
  const unsure = db
    .prepare(`SELECT id FROM items WHERE state IN ('submitting', 'uncertain') ORDER BY seq LIMIT ${LISTED}`)
    .all() as Array<{ id: string }>;
  const unsureCount = (
    db.prepare(`SELECT COUNT(*) AS n FROM items WHERE state IN ('submitting', 'uncertain')`).get() as { n: number }
  ).n;
  return {
    copy,
    sent: { rows: sent.map((r) => ({ id: r.id, taskId: r.task_id })), total: sentCount },
    unsure: { ids: unsure.map((r) => r.id), total: unsureCount },
  };
}
