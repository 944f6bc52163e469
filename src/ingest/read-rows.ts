// Reads the manifests' rows into an open ingest, a batch at a time: valid rows pending, invalid ones counted (the
// first few kept for their errors) and, under --skip-invalid, kept in the journal as invalid rows.
import { basename } from 'node:path';
import { invalidRowHash, type IngestEntry, type IngestWriter } from '../journal/index.js';
import type { PricingTable } from '../core/pricing.js';
import { hashCanonicalRequest } from '../manifest/content-hash.js';
import { formatRowError } from '../manifest/types.js';
import type { InvalidEntry } from './scan-manifests.js';
import { scanCompact } from './scan-compact.js';
import type { CompactRow } from './scan-protocol.js';

// Rows wait here for their insert; while they wait they survive young-generation collections, which
// copy them. Small batches keep that copying small (20,000 rows: 0.46 s against 0.49 s with 1,000).
const BATCH = 64;

const MAX_KEPT_ERRORS = 1000;

export interface RowsRead {
  /** Every row read, valid or not. */
  rows: number;
  /** The first invalid rows (up to a thousand), and how many there were in all. */
  invalid: InvalidEntry[];
  invalidCount: number;
  /** Rows read from each manifest. */
  rowsByPath: Map<string, number>;
}

/** Reads every row into the ingest; a read that fails rolls the ingest back and throws. */
export async function readRows(
  session: IngestWriter,
  files: readonly string[],
  pricing: PricingTable,
  skipInvalid: boolean,
  metaColumns: readonly string[],
): Promise<RowsRead> {
  const rowsByPath = new Map<string, number>();
  const count = (file: string): void => {
    rowsByPath.set(file, (rowsByPath.get(file) ?? 0) + 1);
  };
  const invalid: InvalidEntry[] = [];
  let invalidCount = 0;
  let batch: IngestEntry[] = [];
  // A writer that wants the reader to slow down (its rows still on their way to the database) says so
  // with a promise; the scan worker gets its next batch's go-ahead only once it settles.
  let backlog: Promise<void> | undefined;
  const flush = (): void => {
    const added = session.add(batch);
    batch = [];
    if (added) backlog = added;
  };
  let scan;
  try {
    scan = await scanCompact(
      files,
      pricing,
      {
        valid: (row) => {
          count(row.file);
          batch.push(pendingEntry(row));
          if (batch.length >= BATCH) flush();
        },
        invalid: (entry) => {
          count(entry.file);
          invalidCount++;
          if (invalid.length < MAX_KEPT_ERRORS) invalid.push(entry);
          if (!skipInvalid) return;
          batch.push(invalidRowEntry(entry));
          if (batch.length >= BATCH) flush();
        },
        drained: async () => {
          const waiting = backlog;
          backlog = undefined;
          await waiting;
        },
      },
      { metaColumns },
    );
    flush();
    await backlog;
  } catch (err) {
    await backlog?.catch(() => undefined);
    await session.rollback();
    throw err;
  }
  return { rows: scan.rows, invalid, invalidCount, rowsByPath };
}

/** An id for a row that has none of its own (missing, or a duplicate of an earlier row). */
function standInId(entry: InvalidEntry): string {
  return `@${basename(entry.file)}:${entry.line}`;
}

/** A valid row as the journal takes it: pending. */
function pendingEntry(row: CompactRow): IngestEntry {
  return {
    id: row.id,
    kind: row.kind,
    model: row.model,
    request: null,
    requestJson: row.requestJson,
    metaJson: row.metaJson,
    contentHash: hashCanonicalRequest(row.kind, row.requestJson),
    sourceFile: row.file,
    sourceLine: row.line,
    state: 'pending',
    resolution: row.resolution,
    hasReferenceVideo: row.hasReferenceVideo,
    estimateUsd: row.estimateUsd,
  };
}

/** An invalid row kept in the journal (--skip-invalid), under its own id when that id is sound. */
function invalidRowEntry(entry: InvalidEntry): IngestEntry {
  const ownId = entry.id !== undefined && !entry.errors.some((e) => e.field === 'id');
  return {
    id: ownId ? entry.id! : standInId(entry),
    kind: 'invalid',
    model: null,
    request: null,
    contentHash: invalidRowHash(entry.raw),
    sourceFile: entry.file,
    sourceLine: entry.line,
    state: 'invalid',
    lastError: { message: entry.errors.map(formatRowError).join('; ') },
  };
}
