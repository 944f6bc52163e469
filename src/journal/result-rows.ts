// The rows results.jsonl is rebuilt from: every item in a final state (a chat/responses answer already
// counts once `succeeded`), as raw column text in manifest order, so bodies are spliced, never re-parsed.
import type Database from 'better-sqlite3';
import { ITEM_STATES, TERMINAL, type ItemState } from '../core/states.js';

export interface ResultRow {
  seq: number; id: string; kind: string; state: ItemState; response: string | null; response_status: number | null;
  request_id: string | null; last_error: string | null; task_id: string | null; final_resolution: string | null;
  output_path: string | null; sha256: string | null; bytes: number | null;
}

const FINAL_STATES = [...TERMINAL].map((s) => `'${s}'`).join(', ');
const HAS_LINE = `(state IN (${FINAL_STATES}) OR (state = 'succeeded' AND kind IN ('chat', 'responses')))`;
/** States in which an item's line is yet to appear; a video that `succeeded` waits for its download too. */
const OPEN_STATES = ITEM_STATES.filter((s) => !TERMINAL.has(s) && s !== 'succeeded');

export class ResultRows {
  private readonly pageStmt: Database.Statement<[number, number], ResultRow>;
  private readonly sizeStmt: Database.Statement<[number, number], { bytes: number }>;
  private readonly openStmt: Database.Statement<[], { seq: number | null }>;
  private readonly videoStmt: Database.Statement<[], { seq: number | null }>;

  constructor(db: Database.Database) {
    this.pageStmt = db.prepare(`SELECT seq, id, kind, state, response, response_status, request_id, last_error, task_id,
      final_resolution, output_path, sha256, bytes FROM items WHERE seq > ? AND ${HAS_LINE} ORDER BY seq LIMIT ?`);
    // octet_length reads the stored sizes without loading the bodies into this process.
    this.sizeStmt = db.prepare(`SELECT IFNULL(octet_length(response), 0) + IFNULL(octet_length(last_error), 0) AS bytes
      FROM items WHERE seq > ? AND ${HAS_LINE} ORDER BY seq LIMIT ?`);
    this.openStmt = db.prepare(`SELECT MIN(seq) AS seq FROM items WHERE state IN (${OPEN_STATES.map((s) => `'${s}'`).join(', ')})`);
    this.videoStmt = db.prepare(`SELECT MIN(seq) AS seq FROM items WHERE state = 'succeeded' AND kind NOT IN ('chat', 'responses')`);
  }

  /** Up to `limit` rows with a line, after `afterSeq`. */
  page(afterSeq: number, limit: number): ResultRow[] {
    return this.pageStmt.all(afterSeq, limit);
  }

  /** The stored body and error sizes of the next `limit` such rows: lets a reader bound a page by bytes. */
  sizes(afterSeq: number, limit: number): number[] {
    return this.sizeStmt.all(afterSeq, limit).map((r) => r.bytes);
  }

  /** The manifest position of the first item whose line may still appear or change, or undefined. */
  firstOpenSeq(): number | undefined {
    const seqs = [this.openStmt.get()?.seq, this.videoStmt.get()?.seq].filter((s): s is number => typeof s === 'number');
    return seqs.length === 0 ? undefined : Math.min(...seqs);
  }
}
