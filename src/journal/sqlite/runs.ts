// The `runs` table: one row per `gbatch run` on this journal, written when it starts and when it ends.
// Kept apart from the transition hot path: two writes per run.
import type Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { runRecordOf, type RunEnd, type RunRecord, type RunRow } from '../run-record.js';

const MAX_MESSAGE = 1000;

/** Records a run's start; returns its id for recordRunEnd. */
export function recordRunStart(db: Database.Database, now: number): number {
  const result = db
    .prepare('INSERT INTO runs (pid, host, started_at) VALUES (?, ?, ?)')
    .run(process.pid, hostname(), now);
  return Number(result.lastInsertRowid);
}

export function recordRunEnd(db: Database.Database, now: number, id: number, end: RunEnd): void {
  const message = end.message == null ? null : end.message.slice(0, MAX_MESSAGE);
  db.prepare('UPDATE runs SET ended_at = ?, exit_code = ?, stop_reason = ?, message = ? WHERE id = ?').run(
    now,
    end.exitCode,
    end.stopReason ?? null,
    message,
    id,
  );
}

/** The most recent run, or undefined (none yet, or a journal written before runs were recorded). */
export function lastRun(db: Database.Database): RunRecord | undefined {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get();
  if (!table) return undefined;
  const row = db.prepare('SELECT * FROM runs ORDER BY id DESC LIMIT 1').get() as RunRow | undefined;
  return row && runRecordOf(row);
}
