// One ingest pass into the journal: the rows of a run's manifests, all written or none.
import type { ItemState } from '../core/states.js';
import type { Spend } from './change.js';
import type { IngestEntry, IngestSummary } from './ingest-rules.js';

export interface ManifestRecord {
  bytes: number;
  sha256: string;
  rows: number;
}

export interface ManifestPrint extends ManifestRecord {
  path: string;
}

/** One ingest pass: all of its rows, or (rolled back) none. */
export interface IngestWriter {
  /** Adds rows; may return before they are written (a Promise when the writer wants the caller to wait). */
  add(entries: readonly IngestEntry[]): void | Promise<void>;
  /**
   * Recorded with the rows, in the same transaction: manifests read whole need not be read again. They
   * replace the records of the pass before: the job's manifest set is this pass's (see unchangedRows()).
   */
  recordManifests(prints: readonly ManifestPrint[]): void | Promise<void>;
  /**
   * Writes and judges every row added so far (the pass stays open) and returns the summary commit()
   * would: read it, not `progress`, before choosing commit or rollback. An adapter that judges each row
   * as add() takes it (SQLite) returns its `progress`, already complete.
   */
  settle(): Promise<IngestSummary>;
  /**
   * Says that this pass read the whole of the job's wanted rows (all the manifests of a run): every row
   * the job held before that it did not read is orphaned, every orphaned or adopted row it read is listed
   * again (src/core/orphans.ts). One set-based statement, in the pass's transaction; call it last, before commit().
   * `withheld`: ids whose manifest row changed under them and was skipped (--skip-changed): their rows are
   * orphaned as well, read or not, so that no run sends their old content.
   */
  orphanUnread(withheld?: readonly string[]): Promise<void>;
  commit(): Promise<IngestSummary>;
  rollback(): Promise<IngestSummary>;
  readonly progress: IngestSummary;
  /**
   * After commit(): the job's rows by state and its spend as the commit left them, when the writer knows
   * them without reading the rows (PostgreSQL: a first ingest); undefined otherwise.
   */
  committedTotals(): JobTotals | undefined;
}

export interface JobTotals {
  counts: Record<ItemState, number>;
  spend: Spend;
}

export interface IngestOptions {
  /**
   * A line for the operator while the pass waits for another runner's ingest (who holds the lock, what is done about
   * it).
   */
  say?(line: string): void;
}
