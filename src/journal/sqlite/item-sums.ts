// The job's rows summed by state, kind, model, resolution and error code (migrations/015-item-sums.sql): what
// `status`, `report` and a dashboard read instead of every row. Updates and removals move the sums by triggers;
// an ingest adds its inserted rows' part here, once, before its commit.
import type Database from 'better-sqlite3';
import { ITEM_STATES, type ItemState } from '../../core/states.js';
import type { ItemError } from '../item.js';
import type { SumRow } from '../store.js';
import { emptySums, type SummaryRow, sumRows } from '../summary-rows.js';

export function hasItemSums(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'item_sums'").get() !== undefined;
}

const COLUMNS =
  'state, kind, model, resolution, error_code, items, settled, estimated, actual, settled_estimated, reserved, over, over_n, gateway, gateway_n, tokens, tokens_n, unmetered';

/** The error code a row's last error carries ('' for none), as the triggers and the error-code index read it. */
export function errorCode(error: ItemError | null | undefined): string {
  return typeof error?.code === 'string' ? error.code : '';
}

/** The part of the rows one ingest inserts, added up as it inserts them. */
export class IngestSums {
  private readonly parts = new Map<string, SummaryRow>();

  add(row: {
    state: string;
    kind: string;
    model: string | null;
    resolution: string | null;
    lastError: ItemError | null | undefined;
    estimateUsd: number;
  }): void {
    const key = [row.state, row.kind, row.model ?? '', row.resolution ?? '', errorCode(row.lastError)];
    const id = key.join('\u0000');
    let part = this.parts.get(id);
    if (!part) {
      const [state, kind, model, resolution, error_code] = key as [string, string, string, string, string];
      this.parts.set(id, (part = { state, kind, model, resolution, error_code, ...emptySums() }));
    }
    part.items++;
    part.estimated += row.estimateUsd;
  }

  /** Adds the parts to the summary: call inside the ingest's transaction. */
  write(db: Database.Database): void {
    if (this.parts.size === 0) return;
    const upsert = db.prepare(`INSERT INTO item_sums (${COLUMNS}) VALUES (${COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})
      ON CONFLICT DO UPDATE SET items = items + excluded.items, estimated = estimated + excluded.estimated`);
    for (const p of this.parts.values())
      upsert.run(
        p.state,
        p.kind,
        p.model,
        p.resolution,
        p.error_code,
        p.items,
        0,
        p.estimated,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
      );
    this.parts.clear();
  }
}

export function summaryRows(db: Database.Database): SummaryRow[] {
  return db.prepare(`SELECT ${COLUMNS} FROM item_sums WHERE items <> 0`).all() as SummaryRow[];
}

export function summaryCounts(db: Database.Database): Record<ItemState, number> {
  const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
  for (const { state, n } of db.prepare('SELECT state, SUM(items) AS n FROM item_sums GROUP BY state').all() as Array<{
    state: string;
    n: number;
  }>)
    if (n !== 0) counts[state as ItemState] = n;
  return counts;
}

export function summarySpend(db: Database.Database): { reserved: number; actual: number } {
  return db
    .prepare('SELECT IFNULL(SUM(reserved), 0) AS reserved, IFNULL(SUM(actual), 0) AS actual FROM item_sums')
    .get() as {
    reserved: number;
    actual: number;
  };
}

/**
 * Builds the summary again from every row (a repair; the migration's first fill). Tests that plant rows by plain SQL
 * call it after.
 */
export function recountItemSums(db: Database.Database): void {
  db.transaction(() => {
    db.exec('DELETE FROM item_sums');
    db.exec(`INSERT INTO item_sums (${COLUMNS})
      SELECT state, kind, IFNULL(model, ''), IFNULL(resolution, ''),
        IFNULL(CASE WHEN json_valid(last_error) THEN CAST(json_extract(last_error, '$.code') AS TEXT) END, ''),
        COUNT(*), SUM(actual_usd IS NOT NULL), SUM(estimate_usd), IFNULL(SUM(actual_usd), 0),
        IFNULL(SUM(CASE WHEN actual_usd IS NOT NULL THEN estimate_usd END), 0), SUM(reserved_usd),
        IFNULL(SUM(CASE WHEN actual_usd > estimate_usd THEN actual_usd - estimate_usd END), 0),
        SUM(IFNULL(actual_usd > estimate_usd, 0)), IFNULL(SUM(gateway_charge_usd), 0), COUNT(gateway_charge_usd),
        IFNULL(SUM(total_tokens), 0), COUNT(total_tokens), SUM(unmetered)
      FROM items GROUP BY 1, 2, 3, 4, 5`);
  })();
}

export type { SumRow };
export { sumRows };
