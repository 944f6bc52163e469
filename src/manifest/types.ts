// What reading a manifest yields: one entry per row the user wrote, valid or not.
import { printable } from '../core/printable.js';
import type { ItemKind } from '../core/states.js';

export interface ManifestRow {
  /** The manifest path as given. */
  file: string;
  /** 1-based physical line where the row starts (CSV: the header is line 1). */
  line: number;
  id: string;
  kind: ItemKind;
  model: string;
  /** The exact JSON body to send to the gateway. */
  request: Record<string, unknown>;
  /**
   * The request as canonical JSON (keys sorted): what the journal stores, and what the row's content
   * hash is computed from (`hashCanonicalRequest`), by the consumer that needs it.
   */
  requestJson: string;
  /**
   * The row's metadata as JSON (CSV metadata columns, a JSONL line's `meta`): kept in the journal and
   * results.jsonl, never sent, not part of the content hash. Undefined when the row has none.
   */
  metaJson?: string;
}

export interface RowError {
  file: string;
  line: number;
  id?: string;
  field?: string;
  reason: string;
}

export type ManifestEntry =
  | { ok: true; row: ManifestRow }
  | { ok: false; file: string; line: number; id?: string; raw: string; errors: RowError[] };

/** A problem found in a row before file, line and id are attached. */
export interface RowIssue {
  field?: string;
  reason: string;
}

/** Longest `raw` text kept on an error entry, in characters. */
export const RAW_TEXT_LIMIT = 2048;

export function truncateRaw(text: string): string {
  return text.length <= RAW_TEXT_LIMIT ? text : `${text.slice(0, RAW_TEXT_LIMIT)}…`;
}

/** Quotes a user value for a message; ids may hold any character, so odd ones are escaped. */
export function quote(value: string): string {
  return /^[^'\\\u0000-\u001f\u007f\u2028\u2029]*$/.test(value) ? `'${value}'` : JSON.stringify(value);
}

/** "jobs/a.csv:7 row 'r7' field 'duration': must be ..." */
export function formatRowError(e: RowError): string {
  const row = e.id === undefined ? '' : ` row ${quote(e.id)}`;
  const field = e.field === undefined ? '' : ` field ${quote(e.field)}`;
  // One line on a terminal: the file name, the id and the reason may all hold text from the manifest.
  return printable(`${e.file}:${e.line}${row}${field}: ${e.reason}`);
}
