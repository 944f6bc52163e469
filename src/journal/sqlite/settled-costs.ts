// The cost history in an SQLite journal (the `settled_costs` table; see ../settled-costs.ts).
import type Database from 'better-sqlite3';
import {
  insertSettledCostsSql,
  SELECT_SETTLED_COSTS,
  settledCostOfRow,
  valuesOfSettledCost,
} from '../settled-costs.js';
import type { SettledCostRecord, SettledCostRow } from '../settled-costs.js';

export class SqliteSettledCosts {
  constructor(private readonly db: Database.Database) {}

  record(rows: readonly SettledCostRecord[]): number {
    if (rows.length === 0) return 0;
    const insert = this.db.prepare(insertSettledCostsSql(1, () => '?'));
    return this.db.transaction(() =>
      rows.reduce((added, r) => added + insert.run(...valuesOfSettledCost(r)).changes, 0),
    )();
  }

  /** A journal older than the table (opened read-only, so not migrated) has no history. */
  list(): SettledCostRecord[] {
    const table = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settled_costs'").get();
    if (table === undefined) return [];
    return this.db.prepare<[], SettledCostRow>(SELECT_SETTLED_COSTS).all().map(settledCostOfRow);
  }
}
