// After the journal's file was deleted or replaced under a live run: the run's journal (still open,
// complete) is saved beside the path under a new name, and the operator is told what it holds.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Journal } from '../../journal/index.js';

const LISTED = 20;

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** A path beside `statePath` that holds nothing yet: the copy never overwrites a file. */
function freshPath(base: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${base}.db` : `${base}-${n}.db`;
    if (!existsSync(candidate)) return candidate;
  }
}

/** Writes a consistent copy of the open journal; returns its path, or the reason it could not be saved. */
export function saveJournalCopy(journal: Journal, statePath: string, now: number): { path: string } | { error: string } {
  const targets = [`${statePath}.recovered-${stamp(now)}`, join(tmpdir(), `${basename(statePath)}.recovered-${stamp(now)}`)];
  const errors: string[] = [];
  for (const base of targets) {
    const path = freshPath(base);
    try {
      journal.db.prepare('VACUUM INTO ?').run(path);
      return { path };
    } catch (err) {
      errors.push(`${path}: ${(err as Error).message}`);
    }
  }
  return { error: errors.join('; ') };
}

/** How a lost journal file is named to the operator (a file moved away looks deleted from its path). */
export function lossWords(kind: 'deleted' | 'replaced'): string {
  return kind === 'deleted' ? 'deleted (or moved away)' : 'replaced by another file';
}

function listed(rows: string[], total: number): string {
  return `${rows.join(', ')}${total > rows.length ? `, ... and ${total - rows.length} more` : ''}`;
}

/** The few lines that tell the operator the truth about a journal lost mid-run. */
export function journalLossReport(journal: Journal, statePath: string, kind: 'deleted' | 'replaced', copy: { path: string } | { error: string }): string[] {
  const db = journal.db;
  const sent = db.prepare(`SELECT id, task_id FROM items WHERE task_id IS NOT NULL ORDER BY seq LIMIT ${LISTED}`).all() as Array<{ id: string; task_id: string }>;
  const sentCount = (db.prepare('SELECT COUNT(*) AS n FROM items WHERE task_id IS NOT NULL').get() as { n: number }).n;
  const unsure = db.prepare(`SELECT id FROM items WHERE state IN ('submitting', 'uncertain') ORDER BY seq LIMIT ${LISTED}`).all() as Array<{ id: string }>;
  const unsureCount = (db.prepare(`SELECT COUNT(*) AS n FROM items WHERE state IN ('submitting', 'uncertain')`).get() as { n: number }).n;
  const lines = [`the journal at ${statePath} was ${lossWords(kind)} while this run was using it: no new request was sent after that; requests already in flight were let finish and recorded`];
  if ('path' in copy) lines.push(`the run's journal was saved to ${copy.path}`);
  else lines.push(`the run's journal could NOT be saved (${copy.error}): the ids below are all that is left of it`);
  if (sentCount > 0) lines.push(`${sentCount} row(s) were sent and have task ids (item -> task): ${listed(sent.map((r) => `${r.id} -> ${r.task_id}`), sentCount)}`);
  if (unsureCount > 0) lines.push(`${unsureCount} row(s) may have reached the gateway (uncertain): ${listed(unsure.map((r) => r.id), unsureCount)}`);
  if ('path' in copy) {
    lines.push(kind === 'replaced'
      ? `to resume, move the file now at ${statePath} aside, then move ${copy.path} to ${statePath}; never run against the replacement: it does not know these tasks`
      : `to resume, move ${copy.path} back to ${statePath}; never start a new journal there: it would not know these tasks`);
  }
  return lines;
}
