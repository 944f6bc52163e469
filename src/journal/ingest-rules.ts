// What ingest writes for a manifest row, and the one rule for a row arriving under an id the journal holds.
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

export interface IngestSummary {
  inserted: number;
  unchanged: number;
  replaced: number;
  conflicts: IngestConflict[];
}

/** What an id already held means for a row arriving under it: the one rule `run` and `plan` share. */
export type PriorJudgement = 'unchanged' | 'replace' | 'conflict';

export function judgeAgainstPrior(prior: { content_hash: string; state: string }, contentHash: string): PriorJudgement {
  if (prior.content_hash === contentHash) return 'unchanged';
  // An invalid row was never sent, so its corrected version may take its place.
  return prior.state === 'invalid' ? 'replace' : 'conflict';
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
