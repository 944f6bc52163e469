// Everything a journal holds that a refused command must leave as it was: the job (its budget and
// options), every row, the manifests ingested, the event log. Only the runner lock is left out.
import Database from 'better-sqlite3';

const UNCHANGED = ['job', 'items', 'events', 'event_log', 'event_kinds', 'manifests', 'item_requests', 'item_answers', 'item_texts'];

export function journalSnapshot(statePath: string): Record<string, unknown[]> {
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((t) => t.name));
    return Object.fromEntries(UNCHANGED.filter((t) => tables.has(t)).map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()]));
  } finally {
    db.close();
  }
}
