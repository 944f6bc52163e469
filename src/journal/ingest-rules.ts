// What ingest writes for a manifest row, and the one rule for a row arriving under an id the journal holds.
import { LISTING_CODE } from '../core/orphans.js';
import type { ItemError } from './item.js';

export interface IngestEntry {
  id: string;
  kind: string;
  model: string | null;
  /** Null for an invalid row; ignored when requestJson is given. */
  request: Record<string, unknown> | null;
  /** The request's JSON text when the caller has it already (saves serialising a million rows twice). */
  requestJson?: string;
  /** The row's metadata as JSON (never sent, not in the content hash); null or absent when it has none. */
  metaJson?: string | null;
  contentHash: string;
  sourceFile: string;
  sourceLine: number;
  state: 'pending' | 'invalid';
  resolution?: string | null;
  hasReferenceVideo?: boolean;
  estimateUsd?: number;
  lastError?: ItemError | null;
}

const INVALID_HASH = 'invalid:';

/** An invalid row's content hash: its text as written (it has no request to hash); a corrected row replaces it. */
export function invalidRowHash(raw: string): string {
  return INVALID_HASH + raw;
}

/** The text as written of an invalid row, from its content hash; undefined for a row that has a request. */
export function invalidRowText(contentHash: string): string | undefined {
  return contentHash.startsWith(INVALID_HASH) ? contentHash.slice(INVALID_HASH.length) : undefined;
}

export interface IngestConflict {
  id: string;
  file: string;
  line: number;
  journalLine: number;
  journalFile: string;
}

/** A row whose id the journal holds with other content, and where each of the two was read. */
export function ingestConflict(
  row: { id: string; file: string; line: number },
  prior: { source_file: string; source_line: number },
): IngestConflict {
  return { ...row, journalFile: prior.source_file, journalLine: prior.source_line };
}

export interface IngestSummary {
  inserted: number;
  unchanged: number;
  replaced: number;
  conflicts: IngestConflict[];
}

/** What an id already held means for a row arriving under it: the one rule `run` and `plan` share. */
export type PriorJudgement = 'unchanged' | 'replace' | 'conflict';

/** What the rule reads of the row an id holds (the listing and money absent: a journal without them). */
export interface JudgedPrior {
  content_hash: string;
  state: string;
  /** Its listing code (src/core/orphans.ts). */
  orphan?: number | null;
  reserved_usd?: number | null;
  actual_usd?: number | null;
}

export function judgeAgainstPrior(prior: JudgedPrior, contentHash: string): PriorJudgement {
  if (prior.content_hash === contentHash) return 'unchanged';
  // An invalid row was never sent, so its corrected version may take its place; so may the manifest's
  // content of a row the operator sent again (`gbatch retry <id>`) that waits unsent with nothing booked.
  return prior.state === 'invalid' || retriedAndWaiting(prior) ? 'replace' : 'conflict';
}

/**
 * A row the operator's `gbatch retry` adopted (it was orphaned: in no manifest, or changed in one and
 * skipped with --skip-changed) that no run has sent since, nothing reserved or spent on it: its manifest
 * row's content is what the retry sends.
 */
function retriedAndWaiting(prior: JudgedPrior): boolean {
  return (
    prior.orphan === LISTING_CODE.adopted &&
    (prior.state === 'pending' || prior.state === 'deferred') &&
    (prior.reserved_usd ?? 0) === 0 &&
    (prior.actual_usd ?? 0) === 0
  );
}

/** The SQL condition of retriedAndWaiting on an items row (alias `t`), the guard of an ingest's replacement. */
export function replaceableSql(t: string): string {
  return `(${t}.state = 'invalid' OR (${t}.orphan = ${LISTING_CODE.adopted} AND ${t}.state IN ('pending', 'deferred')
    AND ${t}.reserved_usd = 0 AND COALESCE(${t}.actual_usd, 0) = 0))`;
}

/** An event an ingest writes in the item's log. */
export interface IngestEvent {
  itemId: string;
  event: 'replace';
  from: string;
  to: string;
  detail: string;
}

/**
 * The event of a replacement: the content the row held before, for its history (the event log keeps its
 * attempts' facts). An invalid row's replacement writes none: it held no request and was never sent.
 */
export function replacementEvent(
  id: string,
  prior: JudgedPrior & { source_file: string; source_line: number },
  to: string,
): IngestEvent | undefined {
  if (prior.state === 'invalid') return undefined;
  const previous = { contentHash: prior.content_hash, file: prior.source_file, line: prior.source_line };
  return { itemId: id, event: 'replace', from: prior.state, to, detail: JSON.stringify({ by: 'manifest', previous }) };
}

/** The one line `run` (and `plan`) prints for a row changed under an id the journal already holds. */
export function conflictProblem(c: IngestConflict): string {
  return `${c.file}:${c.line} row '${c.id}': already in the journal (from ${c.journalFile}:${c.journalLine}) with different content; give the changed row a new id`;
}

/**
 * The line `run` (and `plan`) prints for such a row under --skip-changed: the run goes on without it,
 * and the journal's row stays as it is (its content, state and history), withheld like a row no manifest lists.
 */
export function skippedChangeLine(c: IngestConflict): string {
  return `${c.file}:${c.line} row '${c.id}': already in the journal (from ${c.journalFile}:${c.journalLine}) with different content; skipped (--skip-changed): the journal keeps its row, nothing of it is sent`;
}
