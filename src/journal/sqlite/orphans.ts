// The SQLite adapter's orphaned rows (src/core/orphans.ts): the ingest's one statement that orphans the
// rows it did not read, the summary `status` and `run` show, the operator's adoption and removal.
import type Database from 'better-sqlite3';
import { forgetRefusal, LISTING_CODE, listingOf, ORPHAN_WAITING_STATES } from '../../core/orphans.js';
import type { ItemState } from '../../core/states.js';
import type { ForgetOutcome, ListingRow, OrphanSummary } from '../orphans.js';
import { hasEventLog } from './event-log.js';

/** A journal of an older gbatch, opened read-only and not migrated, has no orphans: every row is listed. */
export function hasListing(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_info('items') WHERE name = 'orphan'").get() !== undefined;
}

/**
 * Which rows of the journal an ingest read: those it inserted (a seq above the journal's last when it
 * began) and those it found under ids already held. The latter are kept as runs of consecutive seqs (a
 * manifest read again reads its rows in their order: one run, not a row each), written to a temporary
 * table once, at the end. A first ingest records nothing and orphans nothing.
 */
export class IngestListing {
  /** Closed runs [first, last] of seqs read, and the open one. */
  private readonly runs: Array<[number, number]> = [];
  private open: [number, number] | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly lastSeqBefore: number,
  ) {}

  static begin(db: Database.Database): IngestListing {
    const last = (db.prepare('SELECT MAX(seq) AS seq FROM items').get() as { seq: number | null }).seq ?? 0;
    return new IngestListing(db, last);
  }

  /** A row under an id the journal held before this ingest was read. */
  read(seq: number): void {
    if (this.open && seq === this.open[1] + 1) {
      this.open[1] = seq;
      return;
    }
    if (this.open) this.runs.push(this.open);
    this.open = [seq, seq];
  }

  /**
   * One statement: every row held before that this ingest did not read is orphaned (an adopted one stays
   * adopted), every orphaned or adopted row it read is listed again.
   */
  orphanUnread(): void {
    if (this.lastSeqBefore === 0) return;
    this.db.exec(
      'CREATE TEMP TABLE IF NOT EXISTS ingest_read (first INTEGER PRIMARY KEY, last INTEGER NOT NULL); DELETE FROM temp.ingest_read',
    );
    const insert = this.db.prepare('INSERT INTO temp.ingest_read (first, last) VALUES (?, ?)');
    for (const [first, last] of disjoint([...this.runs, ...(this.open ? [this.open] : [])])) insert.run(first, last);
    // A row was read when the run starting last at or before it reaches it (the runs are disjoint).
    const read =
      '(SELECT r.last FROM temp.ingest_read r WHERE r.first <= items.seq ORDER BY r.first DESC LIMIT 1) >= items.seq';
    // Read but not listed (orphaned or adopted): listed again. Listed but not read: orphaned. An adopted
    // row not read stays adopted, an orphaned one orphaned.
    const { listed, orphaned } = LISTING_CODE;
    this.db
      .prepare(
        `UPDATE items SET orphan = CASE WHEN orphan = ${listed} THEN ${orphaned} ELSE ${listed} END
      WHERE seq <= ? AND CASE WHEN ${read} THEN orphan <> ${listed} ELSE orphan = ${listed} END`,
      )
      .run(this.lastSeqBefore);
  }
}

/** Rows whose manifest row changed and was skipped (--skip-changed): orphaned, so no run sends their old content. */
export function withholdRows(db: Database.Database, ids: readonly string[]): void {
  if (ids.length === 0) return;
  db.prepare(
    `UPDATE items SET orphan = ${LISTING_CODE.orphaned} WHERE id IN (SELECT value FROM json_each(?)) AND orphan <> ${LISTING_CODE.orphaned}`,
  ).run(JSON.stringify(ids));
}

/** Runs sorted and merged where they overlap or touch. */
function disjoint(runs: Array<[number, number]>): Array<[number, number]> {
  runs.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [first, last] of runs) {
    const previous = merged[merged.length - 1];
    if (previous && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else merged.push([first, last]);
  }
  return merged;
}

const WAITING = ORPHAN_WAITING_STATES.map((s) => `'${s}'`).join(', ');

export function orphanSummary(db: Database.Database, limit: number): OrphanSummary {
  if (!hasListing(db)) return { total: 0, counts: {}, rows: [] };
  const where = `orphan = ${LISTING_CODE.orphaned} AND state IN (${WAITING})`;
  const counts: Partial<Record<ItemState, number>> = {};
  let total = 0;
  for (const row of db.prepare(`SELECT state, COUNT(*) AS n FROM items WHERE ${where} GROUP BY state`).all() as Array<{
    state: ItemState;
    n: number;
  }>) {
    counts[row.state] = row.n;
    total += row.n;
  }
  const rows =
    total === 0 || limit === 0
      ? []
      : (db.prepare(`SELECT id, state, attempts FROM items WHERE ${where} ORDER BY seq LIMIT ?`).all(limit) as Array<
          Omit<ListingRow, 'listing'>
        >);
  return { total, counts, rows: rows.map((row) => ({ ...row, listing: 'orphaned' })) };
}

export function listings(db: Database.Database, ids: readonly string[]): Map<string, ListingRow> {
  const column = hasListing(db) ? 'orphan' : '0 AS orphan';
  const find = db.prepare(`SELECT id, ${column}, state, attempts FROM items WHERE id = ?`);
  const found = new Map<string, ListingRow>();
  for (const id of ids) {
    const row = find.get(id) as { id: string; orphan: number; state: ItemState; attempts: number } | undefined;
    if (row) found.set(id, { id, listing: listingOf(row.orphan), state: row.state, attempts: row.attempts });
  }
  return found;
}

/** The orphaned rows among `ids` become adopted (the operator wants them sent); returns the ids changed. */
export function adopt(db: Database.Database, ids: readonly string[]): string[] {
  const update = db.prepare(
    `UPDATE items SET orphan = ${LISTING_CODE.adopted} WHERE id = ? AND orphan = ${LISTING_CODE.orphaned}`,
  );
  return db.transaction(() => ids.filter((id) => update.run(id).changes === 1))();
}

/**
 * Removes the named rows, their requests and their events, all or none (forgetRefusal). The manifests'
 * records go too: a manifest read whole before may hold a removed id, and must be read again to add it back.
 */
export function forget(db: Database.Database, ids: readonly string[]): ForgetOutcome {
  return db
    .transaction((): ForgetOutcome => {
      const rows = listings(db, ids);
      for (const id of ids) {
        const refusal = forgetRefusal(rows.get(id), id);
        if (refusal) return { ok: false, refusal };
      }
      const remove = db.prepare('DELETE FROM items WHERE id = ?');
      const events = hasEventLog(db)
        ? [
            db.prepare('DELETE FROM event_log WHERE item_id = ?'),
            db.prepare('DELETE FROM events_inline WHERE item_id = ?'),
          ]
        : [db.prepare('DELETE FROM events WHERE item_id = ?')];
      const unique = [...new Set(ids)];
      for (const id of unique) {
        remove.run(id);
        for (const statement of events) statement.run(id);
      }
      db.prepare('DELETE FROM manifests').run();
      return { ok: true, forgotten: unique };
    })
    .immediate();
}
