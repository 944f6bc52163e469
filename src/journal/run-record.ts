// A run as the journal records it, and how it ended: plain types, apart from the adapters that write them
// (the library's public types name them without reaching a database driver's).

export interface RunRecord {
  id: number;
  pid: number;
  host: string;
  startedAt: number;
  /** Null while the run is live, or for ever when it was killed before it could write its end. */
  endedAt: number | null;
  exitCode: number | null;
  stopReason: string | null;
  message: string | null;
}

export interface RunEnd {
  exitCode: number;
  stopReason?: string | null;
  message?: string | null;
}

/** A row of the `runs` table as both adapters read it (the same columns in SQLite and PostgreSQL). */
export interface RunRow {
  id: number;
  pid: number;
  host: string;
  started_at: number;
  ended_at: number | null;
  exit_code: number | null;
  stop_reason: string | null;
  message: string | null;
}

export function runRecordOf(row: RunRow): RunRecord {
  return {
    id: row.id,
    pid: row.pid,
    host: row.host,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    exitCode: row.exit_code,
    stopReason: row.stop_reason,
    message: row.message,
  };
}
