// Everything a journal holds that a refused command must leave as it was: the job (its budget and
// options), every row, the manifests ingested, the event log, the record of runs. Only the runner lock
// (taken and released by a refused run) is left out.
import { openSqliteFile } from './journal-raw.js';

const UNCHANGED = [
  'job',
  'items',
  'events_inline',
  'event_log',
  'event_kinds',
  'manifests',
  'runs',
  'item_requests',
  'item_answers',
  'item_texts',
];

export function journalSnapshot(statePath: string): Record<string, unknown[]> {
  const db = openSqliteFile(statePath, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((t) => t.name),
    );
    const present = UNCHANGED.filter((t) => tables.has(t));
    if (!present.includes('items') || !present.includes('job'))
      throw new Error(`${statePath}: not a journal with a job`);
    return Object.fromEntries(present.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()]));
  } finally {
    db.close();
  }
}
