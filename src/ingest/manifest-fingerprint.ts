// A manifest ingested whole before, byte for byte, need not be read again: a restart of a large job
// gets to its first new submission without re-validating a million rows.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { JournalRun, ManifestPrint } from '../journal/index.js';

export interface Fingerprint {
  path: string;
  bytes: number;
  sha256: string;
}

export async function fingerprint(path: string): Promise<Fingerprint> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { path, bytes, sha256: hash.digest('hex') };
}

/**
 * The rows of the earlier ingest when it read exactly these manifests and none has changed since;
 * undefined otherwise. The same set, not only the same files: a manifest left out of this run orphans
 * its rows (src/core/orphans.ts), which only a read of the run's manifests decides.
 */
export async function unchangedRows(journal: JournalRun, prints: readonly Fingerprint[]): Promise<number | undefined> {
  const known = await journal.manifestRecords();
  if (known.size !== new Set(prints.map((p) => p.path)).size) return undefined;
  let rows = 0;
  for (const print of prints) {
    const row = known.get(print.path);
    if (!row || row.bytes !== print.bytes || row.sha256 !== print.sha256) return undefined;
    rows += row.rows;
  }
  return rows;
}

/** The records an ingest writes with its rows (in its transaction), so they commit together. */
export function manifestPrints(
  prints: readonly Fingerprint[],
  rowsByPath: ReadonlyMap<string, number>,
): ManifestPrint[] {
  return prints.map((print) => ({ ...print, rows: rowsByPath.get(print.path) ?? 0 }));
}
