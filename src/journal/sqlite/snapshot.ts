// A snapshot of an SQLite journal (../journal-snapshot.ts): a read-only connection of its own whose read
// transaction is pinned before it is handed out. In WAL mode the writer's commits go on beside it, unseen.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ItemFilter } from '../journal-run.js';
import { SNAPSHOT_ROW_COLUMNS, snapshotRows, type JournalSnapshot, type SnapshotRowData } from '../settled-costs.js';
import { openDatabase } from './open-database.js';
import { ItemReads } from './queries.js';
import { SqliteSettledCosts } from './settled-costs.js';
import { hasWideValues } from './wide-values.js';

export function openSnapshot(file: string): JournalSnapshot {
  const db = openDatabase(file, { readonly: true, sync: 'full' });
  try {
    db.exec('BEGIN');
    // A read transaction takes its snapshot at its first read: this one, before anything else commits.
    db.prepare('SELECT seq FROM items LIMIT 1').get();
  } catch (err) {
    db.close();
    throw err;
  }
  const reads = new ItemReads(db, '*');
  const request = hasWideValues(db)
    ? 'COALESCE((SELECT r.request FROM item_requests r WHERE r.seq = items.seq), items.request) AS request'
    : 'items.request';
  const columns = `${SNAPSHOT_ROW_COLUMNS}, ${request}`;
  return {
    iterate: (filter: Omit<ItemFilter, 'mine'> = {}, pageSize = 2000) =>
      snapshotRows(async (after) => {
        // The reads are synchronous: a turn of the event loop between pages lets the run's sends go on.
        await nextTurn();
        return db.open ? reads.rowsOf<SnapshotRowData>(columns, filter, after, pageSize) : [];
      }),
    async settledCosts() {
      return new SqliteSettledCosts(db).list();
    },
    async close() {
      if (!db.open) return;
      try {
        db.exec('COMMIT');
      } finally {
        db.close();
      }
    },
  };
}
