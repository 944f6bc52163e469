// The group ratios the job's runs saw (the `drifts` table): one row per account and model, the largest kept.
import type Database from 'better-sqlite3';
import type { SeenDrift } from '../../core/seen-drift.js';
import { DRIFT_COLUMNS, driftOfRow, rowOfDrift, type DriftRow } from '../drift-rows.js';

const UPDATES = DRIFT_COLUMNS.filter((c) => c !== 'account' && c !== 'model')
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

export class SqliteDrifts {
  private readonly upsert: Database.Statement;
  private readonly all: Database.Statement<[], DriftRow>;

  constructor(db: Database.Database) {
    this.upsert = db.prepare(
      `INSERT INTO drifts (${DRIFT_COLUMNS.join(', ')}, seen_at) VALUES (${DRIFT_COLUMNS.map(() => '?').join(', ')}, ?)
      ON CONFLICT (account, model) DO UPDATE SET ${UPDATES}, seen_at = excluded.seen_at WHERE excluded.ratio > drifts.ratio`,
    );
    this.all = db.prepare(`SELECT ${DRIFT_COLUMNS.join(', ')} FROM drifts ORDER BY account, model`);
  }

  record(seen: SeenDrift, at: number): void {
    this.upsert.run(...rowOfDrift(seen), at);
  }

  list(): SeenDrift[] {
    return this.all.all().map(driftOfRow);
  }
}
