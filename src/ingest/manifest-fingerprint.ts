// A manifest ingested whole before, byte for byte, need not be read again: a restart of a large job
// gets to its first new submission without re-validating a million rows.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Journal } from '../journal/index.js';

export interface Fingerprint { path: string; bytes: number; sha256: string }

export async function fingerprint(path: string): Promise<Fingerprint> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { path, bytes, sha256: hash.digest('hex') };
}

/** The rows of the earlier ingest when every manifest is unchanged since then; undefined otherwise. */
export function unchangedRows(journal: Journal, prints: readonly Fingerprint[]): number | undefined {
  const known = journal.db.prepare('SELECT bytes, sha256, rows FROM manifests WHERE path = ?');
  let rows = 0;
  for (const print of prints) {
    const row = known.get(print.path) as { bytes: number; sha256: string; rows: number } | undefined;
    if (!row || row.bytes !== print.bytes || row.sha256 !== print.sha256) return undefined;
    rows += row.rows;
  }
  return rows;
}

/** Called inside the ingest transaction, so the record commits with the rows it describes. */
export function recordFingerprints(journal: Journal, prints: readonly Fingerprint[], rowsByPath: ReadonlyMap<string, number>): void {
  const upsert = journal.db.prepare(`INSERT INTO manifests (path, bytes, sha256, rows, ingested_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, rows = excluded.rows, ingested_at = excluded.ingested_at`);
  for (const print of prints) upsert.run(print.path, print.bytes, print.sha256, rowsByPath.get(print.path) ?? 0, journal.now());
}
