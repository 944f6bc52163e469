// An ingest pass on an SQLite journal: one transaction (IngestSession), with the manifests it read whole.
import type Database from 'better-sqlite3';
import type { IngestEntry, IngestSummary } from '../ingest-rules.js';
import type { IngestWriter, ManifestPrint } from '../store.js';
import type { IngestSession } from './ingest-session.js';

export class SqliteIngestWriter implements IngestWriter {
  constructor(
    private readonly db: Database.Database,
    private readonly session: IngestSession,
    private readonly now: () => number,
  ) {}

  add(entries: readonly IngestEntry[]): void {
    this.session.add(entries);
  }

  recordManifests(prints: readonly ManifestPrint[]): void {
    this.db.prepare('DELETE FROM manifests').run();
    const upsert = this.db
      .prepare(`INSERT INTO manifests (path, bytes, sha256, rows, ingested_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, rows = excluded.rows, ingested_at = excluded.ingested_at`);
    for (const print of prints) upsert.run(print.path, print.bytes, print.sha256, print.rows, this.now());
  }

  /** Each row was judged as add() took it. */
  async settle(): Promise<IngestSummary> {
    return this.session.progress;
  }

  async orphanUnread(withheld?: readonly string[]): Promise<void> {
    this.session.orphanUnread(withheld);
  }

  async commit(): Promise<IngestSummary> {
    return this.session.commit();
  }

  async rollback(): Promise<IngestSummary> {
    return this.session.rollback();
  }

  get progress(): IngestSummary {
    return this.session.progress;
  }

  /** Not known without reading the rows. */
  committedTotals(): undefined {
    return undefined;
  }
}
