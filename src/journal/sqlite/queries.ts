// What the SQLite adapter reads for reports, views and commands: rows by state or page, an item's events,
// the job's event log, the report's sums, the rows already held under ids, the manifests read whole.
import type Database from 'better-sqlite3';
import type { ItemState } from '../../core/states.js';
import { rowToItem, type Item, type ItemRow } from '../item.js';
import { ADOPTED_SQL, NOT_ORPHANED_SQL } from '../orphans.js';
import type {
  EventLogRecord,
  ItemEventRecord,
  ItemFilter,
  ManifestRecord,
  PriorRow,
  ReportSums,
  SumRow,
} from '../store.js';
import { logPage } from './event-log.js';
import { eventLogRecordOf, ITEM_EVENT_COLUMNS, itemEventOf, type EventRow } from '../event-records.js';
import { priorQuery } from './narrow-keys.js';
import { hasListing } from './orphans.js';
import { stateKindWhere } from './state-kind-where.js';

const SUMS = `COUNT(*) AS items,
  SUM(actual_usd IS NOT NULL) AS settled,
  SUM(estimate_usd) AS estimated,
  SUM(actual_usd) AS actual,
  SUM(CASE WHEN actual_usd IS NOT NULL THEN estimate_usd END) AS settled_estimated,
  SUM(reserved_usd) AS reserved,
  SUM(CASE WHEN actual_usd > estimate_usd THEN actual_usd - estimate_usd END) AS over,
  SUM(gateway_charge_usd) AS gateway,
  COUNT(gateway_charge_usd) AS gateway_n,
  SUM(total_tokens) AS tokens`;

/** Item reads over the journal's item columns as read (the wide values joined back in where they are kept apart). */
export class ItemReads {
  private listingColumn: boolean | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly columns: string,
  ) {}

  /** Items in any of `states`, in manifest order, after `afterSeq`. */
  list(states: readonly ItemState[], limit = -1, afterSeq = 0): Item[] {
    const marks = states.map(() => '?').join(', ');
    const rows = this.db
      .prepare(`SELECT ${this.columns} FROM items WHERE state IN (${marks}) AND seq > ? ORDER BY seq LIMIT ?`)
      .all(...states, afterSeq, limit) as ItemRow[];
    return rows.map(rowToItem);
  }

  /** Up to `pageSize` items after `afterSeq`, in manifest order, optionally filtered. */
  page(filter: Omit<ItemFilter, 'mine'>, afterSeq: number, pageSize: number): Item[] {
    return this.rowsOf<ItemRow>(this.columns, filter, afterSeq, pageSize).map(rowToItem);
  }

  /** As page(), with only the `columns` asked for (a read that needs a few of a row's columns skips the rest). */
  rowsOf<R>(columns: string, filter: Omit<ItemFilter, 'mine'>, afterSeq: number, pageSize: number): R[] {
    const { where, args } = stateKindWhere(filter);
    where.unshift('seq > ?');
    // A journal of an older gbatch (read-only, not migrated) lists every row: none orphaned, none adopted.
    if (filter.notOrphaned || filter.adopted) {
      if (!(this.listingColumn ??= hasListing(this.db))) {
        if (filter.adopted) return [];
      } else where.push(filter.adopted ? ADOPTED_SQL : NOT_ORPHANED_SQL);
    }
    const page = this.db.prepare(`SELECT ${columns} FROM items WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`);
    return page.all(afterSeq, ...args, pageSize) as R[];
  }
}

export function itemEvents(db: Database.Database, itemId: string): ItemEventRecord[] {
  const rows = db
    .prepare(`SELECT ${ITEM_EVENT_COLUMNS} FROM events WHERE item_id = ? ORDER BY seq`)
    .all(itemId) as Array<Omit<EventRow, 'seq' | 'item_id'>>;
  return rows.map(itemEventOf);
}

export function eventLogRecords(db: Database.Database, afterSeq: number, limit: number): EventLogRecord[] {
  return logPage(db, afterSeq, limit).map(eventLogRecordOf);
}

export function reportSums(db: Database.Database): ReportSums {
  // A journal written before the unmetered column (read-only, not migrated) has none unmetered.
  const hasUnmetered =
    db.prepare(`SELECT 1 FROM pragma_table_info('items') WHERE name = 'unmetered'`).get() !== undefined;
  const unmetered = hasUnmetered ? 'SUM(unmetered) AS unmetered' : '0 AS unmetered';
  const total = db.prepare(`SELECT ${SUMS}, ${unmetered} FROM items`).get() as SumRow;
  const groups = db
    .prepare(
      `SELECT model, resolution, ${SUMS} FROM items WHERE state != 'invalid'
    GROUP BY model, resolution ORDER BY model, resolution`,
    )
    .all() as Array<SumRow & { model: string; resolution: string | null }>;
  return { total, groups };
}

export function priors(db: Database.Database, ids: readonly string[]): Map<string, PriorRow> {
  const lookup = db.prepare(priorQuery(db));
  const found = new Map<string, PriorRow>();
  for (const id of ids) {
    const row = lookup.get(id) as PriorRow | undefined;
    if (row) found.set(id, row);
  }
  return found;
}

export function manifestRecords(db: Database.Database, paths?: readonly string[]): Map<string, ManifestRecord> {
  const found = new Map<string, ManifestRecord>();
  if (paths === undefined) {
    for (const { path, ...record } of db.prepare('SELECT path, bytes, sha256, rows FROM manifests').all() as Array<
      ManifestRecord & { path: string }
    >) {
      found.set(path, record);
    }
    return found;
  }
  const known = db.prepare('SELECT bytes, sha256, rows FROM manifests WHERE path = ?');
  for (const path of paths) {
    const row = known.get(path) as ManifestRecord | undefined;
    if (row) found.set(path, row);
  }
  return found;
}
