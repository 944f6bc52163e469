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
