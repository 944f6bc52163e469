// The item row's wide values kept out of line (schema step 7, migrations/007-wide-values.sql), so the row a transition
// rewrites
// stays narrow: SQLite rewrites a whole page for every row changed in it, so the bytes a commit writes
// grow with the width of the rows it touches, not with the columns it sets.
// - `request` (written at ingest) and `response` (the gateway's body, written once) live in
//   `item_requests` and `item_answers`, keyed by seq;
// - `price_snapshot` and `output_path` repeat across rows: each distinct text is stored once in
//   `item_texts` and the row holds its id (`price_ref`, `output_ref`).
// A value written inline (older journals; an operator's or a test's plain UPDATE of the column) still
// reads back: the out-of-line value wins when there is one, and a plain UPDATE of an inline column
// drops the out-of-line one (triggers), so `UPDATE items SET response = NULL` still clears it.
import type Database from 'better-sqlite3';
import type { ItemPatch } from '../item.js';
import { CONTENT_HASH_READ, hasNarrowKeys, SOURCE_FILE_READ } from './narrow-keys.js';
import { REPORT_COLUMNS } from '../row-times.js';

/**
 * The columns of `items` with the wide values read back from where they are. The overrides come after
 * `items.*` and share their names: better-sqlite3 keeps the last column of a name.
 */
export const ITEM_COLUMNS_WIDE = `items.*,
  COALESCE((SELECT r.request FROM item_requests r WHERE r.seq = items.seq), items.request) AS request,
  COALESCE((SELECT a.response FROM item_answers a WHERE a.seq = items.seq), items.response) AS response,
  COALESCE((SELECT t.text FROM item_texts t WHERE t.id = items.price_ref), items.price_snapshot) AS price_snapshot,
  COALESCE((SELECT t.text FROM item_texts t WHERE t.id = items.output_ref), items.output_path) AS output_path`;

/** The item columns as read from this journal: with the wide values and the narrow keys where it has them. */
export function itemColumns(db: Database.Database): string {
  if (!hasWideValues(db)) return '*';
  if (!hasNarrowKeys(db)) return ITEM_COLUMNS_WIDE;
  return `${ITEM_COLUMNS_WIDE},
  ${CONTENT_HASH_READ} AS content_hash,
  ${SOURCE_FILE_READ} AS source_file`;
}

/**
 * The columns a report reads (REPORT_COLUMNS, in order) as this journal keeps them, then the ids of the texts kept
 * once (price_ref, output_ref, source_ref; null on a journal without them): resolveReportTexts puts those in place.
 */
export function reportColumns(db: Database.Database): string {
  const wide = hasWideValues(db);
  const narrow = hasNarrowKeys(db);
  return [
    ...REPORT_COLUMNS.map((column) => `items.${column}`),
    wide ? 'items.price_ref' : 'NULL',
    wide ? 'items.output_ref' : 'NULL',
    narrow ? 'items.source_ref' : 'NULL',
  ].join(', ');
}

const PRICE = REPORT_COLUMNS.indexOf('price_snapshot');
const OUTPUT = REPORT_COLUMNS.indexOf('output_path');
const SOURCE = REPORT_COLUMNS.indexOf('source_file');

/**
 * A page of a report's rows with the texts kept once put back in place: each text is read once per page (rows share a
 * few price snapshots and manifest paths), not once per row.
 */
export class ReportTexts {
  private readonly known = new Map<number, string>();
  private readonly read: Database.Statement;

  constructor(db: Database.Database) {
    this.read = db.prepare('SELECT text FROM item_texts WHERE id = ?').pluck();
  }

  resolve(row: unknown[]): unknown[] {
    const [price, output, source] = row.slice(REPORT_COLUMNS.length) as Array<number | null>;
    if (price != null) row[PRICE] = this.text(price) ?? row[PRICE];
    if (output != null) row[OUTPUT] = this.text(output) ?? row[OUTPUT];
    if (row[SOURCE] === '' && source != null) row[SOURCE] = this.text(source);
    return row;
  }

  private text(id: number): string | undefined {
    let text = this.known.get(id);
    if (text === undefined) {
      text = this.read.get(id) as string | undefined;
      if (text !== undefined) this.known.set(id, text);
    }
    return text;
  }
}

/** True when the journal has the out-of-line tables (a read-only journal of an older gbatch may not). */
export function hasWideValues(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'item_answers'").get() !== undefined;
}

/** What a patch writes out of line; the rest of the patch goes to the row as before. */
export interface WideWrite {
  rowPatch: ItemPatch;
  /** Extra `column = ?` assignments for the row, with their values. */
  assignments: string[];
  values: unknown[];
  /** The response to store in item_answers after the row's update (null: nothing to store). */
  response: string | null;
}

export class WideValues {
  private readonly textIds = new Map<string, number>();
  private readonly findText: Database.Statement<[string], { id: number }>;
  private readonly addText: Database.Statement<[string]>;
  private readonly putAnswer: Database.Statement<[number, string]>;

  constructor(db: Database.Database) {
    this.findText = db.prepare('SELECT id FROM item_texts WHERE text = ?');
    this.addText = db.prepare('INSERT INTO item_texts (text) VALUES (?)');
    this.putAnswer = db.prepare('INSERT OR REPLACE INTO item_answers (seq, response) VALUES (?, ?)');
  }

  /**
   * Splits a patch: a non-null response, price snapshot or output path is written out of line; a null
   * one is written inline as NULL, which (through the triggers) clears its out-of-line value too.
   */
  split(patch: ItemPatch): WideWrite {
    const { response, priceSnapshot, outputPath, ...rowPatch } = patch;
    const assignments: string[] = [];
    const values: unknown[] = [];
    let answer: string | null = null;
    if (response === null) assignments.push('response = NULL');
    else if (response !== undefined) answer = JSON.stringify(response);
    if (priceSnapshot === null) assignments.push('price_snapshot = NULL', 'price_ref = NULL');
    else if (priceSnapshot !== undefined) {
      assignments.push('price_ref = ?');
      values.push(this.textId(JSON.stringify(priceSnapshot)));
    }
    if (outputPath === null) assignments.push('output_path = NULL', 'output_ref = NULL');
    else if (outputPath !== undefined) {
      assignments.push('output_ref = ?');
      values.push(this.textId(outputPath));
    }
    return { rowPatch, assignments, values, response: answer };
  }

  storeAnswer(seq: number, response: string): void {
    this.putAnswer.run(seq, response);
  }

  /** The id of `text` in item_texts, added if new. Call inside the write transaction. */
  textId(text: string): number {
    const known = this.textIds.get(text);
    if (known !== undefined) return known;
    const id = this.findText.get(text)?.id ?? Number(this.addText.run(text).lastInsertRowid);
    this.textIds.set(text, id);
    return id;
  }

  /** After a rollback: an id handed out inside it may not exist. */
  forgetUncommitted(): void {
    this.textIds.clear();
  }
}
