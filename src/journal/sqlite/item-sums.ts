// The job's rows summed by state, kind, model, resolution and error code (migrations/015-item-sums.sql): what
// `status`, `report` and a dashboard read instead of every row. Updates and removals move the sums by triggers;
// an ingest adds its inserted rows' part here, once, before its commit.
import type Database from 'better-sqlite3';
import { ITEM_STATES, type ItemState } from '../../core/states.js';
import type { ItemError } from '../item.js';
import type { SumRow } from '../store.js';
import { type SummaryRow, sumRows } from '../summary-rows.js';

export function hasItemSums(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'item_sums'").get() !== undefined;
}

const MONEY = ['estimated', 'actual', 'settled_estimated', 'reserved', 'over', 'gateway'] as const;
/**
 * The table's columns in its order, each with its value over a group of `items` rows (grouped by the first five):
 * what recountItemSums fills the table with, and the columns an ingest names its part by.
 */
const OVER_ROWS: ReadonlyArray<readonly [column: string, value: string]> = [
  ['state', 'state'],
  ['kind', 'kind'],
  ['model', "IFNULL(model, '')"],
  ['resolution', "IFNULL(resolution, '')"],
  [
    'error_code',
    "IFNULL(CASE WHEN json_valid(last_error) THEN CAST(json_extract(last_error, '$.code') AS TEXT) END, '')",
  ],
  ['items', 'COUNT(*)'],
  ['settled', 'SUM(actual_usd IS NOT NULL)'],
  ['estimated', 'SUM(estimate_usd)'],
  ['actual', 'IFNULL(SUM(actual_usd), 0)'],
  ['settled_estimated', 'IFNULL(SUM(CASE WHEN actual_usd IS NOT NULL THEN estimate_usd END), 0)'],
  ['reserved', 'SUM(reserved_usd)'],
  ['over', 'IFNULL(SUM(CASE WHEN actual_usd > estimate_usd THEN actual_usd - estimate_usd END), 0)'],
  ['over_n', 'SUM(IFNULL(actual_usd > estimate_usd, 0))'],
  ['gateway', 'IFNULL(SUM(gateway_charge_usd), 0)'],
  ['gateway_n', 'COUNT(gateway_charge_usd)'],
  ['tokens', 'IFNULL(SUM(total_tokens), 0)'],
  ['tokens_n', 'COUNT(total_tokens)'],
  ['unmetered', 'SUM(unmetered)'],
  ...MONEY.map((m) => [`${m}_err`, '0'] as const),
];
const COLUMNS = OVER_ROWS.map(([column]) => column).join(', ');
const KEY_COLUMNS = 5;
/** The summary's columns as read: each money sum with its compensation added. */
const READ = `state, kind, model, resolution, error_code, items, settled, ${MONEY.map((m) => `${m} + ${m}_err AS ${m}`).join(', ')}, over_n, gateway_n, tokens, tokens_n, unmetered`;

/** Adds a pair (sum, compensation) to a column's, as the triggers do (Kahan-Babuska-Neumaier). */
const kbn = (m: string): string =>
  `${m} = ${m} + excluded.${m}, ${m}_err = ${m}_err + excluded.${m}_err + CASE WHEN abs(${m}) >= abs(excluded.${m}) THEN (${m} - (${m} + excluded.${m})) + excluded.${m} ELSE (excluded.${m} - (${m} + excluded.${m})) + ${m} END`;

/** SQLite's SUM() of REAL values, step by step (func.c: kahanBabuskaNeumaierStep). */
class RealSum {
  sum = 0;
  err = 0;
  add(r: number): void {
    const t = this.sum + r;
    if (Math.abs(this.sum) > Math.abs(r)) this.err += this.sum - t + r;
    else this.err += r - t + this.sum;
    this.sum = t;
  }
}

/** The error code a row's last error carries ('' for none), as the triggers and the error-code index read it. */
export function errorCode(error: ItemError | null | undefined): string {
  return typeof error?.code === 'string' ? error.code : '';
}

/** The part of the rows one ingest inserts, added up as it inserts them. */
export class IngestSums {
  private readonly parts = new Map<string, { key: string[]; items: number; estimated: RealSum }>();

  add(row: {
    state: string;
    kind: string;
    model: string | null;
    resolution: string | null;
    lastError: ItemError | null | undefined;
    estimateUsd: number;
  }): void {
    const model = row.model ?? '';
    const resolution = row.resolution ?? '';
    const code = row.lastError ? errorCode(row.lastError) : '';
    const id = `${row.state}\u0000${row.kind}\u0000${model}\u0000${resolution}\u0000${code}`;
    let part = this.parts.get(id);
    if (!part)
      this.parts.set(
        id,
        (part = { key: [row.state, row.kind, model, resolution, code], items: 0, estimated: new RealSum() }),
      );
    part.items++;
    part.estimated.add(row.estimateUsd);
  }

  /** Adds the parts to the summary: call inside the ingest's transaction. */
  write(db: Database.Database): void {
    if (this.parts.size === 0) return;
    const marks = OVER_ROWS.map(() => '?');
    const upsert = db.prepare(`INSERT INTO item_sums (${COLUMNS}) VALUES (${marks.join(', ')})
      ON CONFLICT DO UPDATE SET items = items + excluded.items, ${kbn('estimated')}`);
    for (const { key, items, estimated } of this.parts.values()) {
      const [state, kind, model, resolution, error_code] = key;
      const values: Record<string, string | number | undefined> = {
        state,
        kind,
        model,
        resolution,
        error_code,
        items,
        estimated: estimated.sum,
        estimated_err: estimated.err,
      };
      upsert.run(...OVER_ROWS.map(([column]) => values[column] ?? 0));
    }
    this.parts.clear();
  }
}

export function summaryRows(db: Database.Database): SummaryRow[] {
  return db.prepare(`SELECT ${READ} FROM item_sums WHERE items <> 0`).all() as SummaryRow[];
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

const RECOUNT = `INSERT INTO item_sums (${COLUMNS})
  SELECT ${OVER_ROWS.map(([, value]) => value).join(', ')}
  FROM items GROUP BY ${Array.from({ length: KEY_COLUMNS }, (_, i) => i + 1).join(', ')}`;

/**
 * Builds the summary again from every row (a repair; the migration's first fill). Tests that plant rows by plain SQL
 * call it after.
 */
export function recountItemSums(db: Database.Database): void {
  db.transaction(() => {
    db.exec('DELETE FROM item_sums');
    db.exec(RECOUNT);
  })();
}

export type { SumRow };
export { sumRows };
