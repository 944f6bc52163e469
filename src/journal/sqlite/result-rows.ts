// The rows results.jsonl is rebuilt from: every item in a final state (a chat/responses answer already
// counts once `succeeded`), as raw column text in manifest order, so bodies are spliced, never re-parsed.
import type Database from 'better-sqlite3';
import { OPEN_STATES, scopeCondition, type ResultRow, type ResultScope } from '../result-row.js';
import { hasWideValues } from './wide-values.js';

export type { ResultRow };

export class ResultRows {
  private readonly pageStmts: Record<ResultScope, Database.Statement<[number, number], ResultRow>>;
  private readonly openStmt: Database.Statement<[], { seq: number | null }>;
  private readonly videoStmt: Database.Statement<[], { seq: number | null }>;

  /** @internal the driver's handle: left out of the published types (better-sqlite3's are a dev dependency). */
  constructor(db: Database.Database) {
    // NOT INDEXED: a walk of the primary key from `seq` stops after LIMIT rows; through the state index,
    // the OR would gather and sort every row with a line on each page.
    const wide = hasWideValues(db);
    const response = wide
      ? 'COALESCE((SELECT a.response FROM item_answers a WHERE a.seq = items.seq), response) AS response'
      : 'response';
    const outputPath = wide
      ? 'COALESCE((SELECT t.text FROM item_texts t WHERE t.id = items.output_ref), output_path) AS output_path'
      : 'output_path';
    const page = (scope: ResultScope) =>
      db.prepare<[number, number], ResultRow>(`SELECT seq, id, kind, state, ${response}, response_status, request_id,
      last_error, task_id, final_resolution, ${outputPath}, sha256, bytes, meta FROM items NOT INDEXED
      WHERE seq > ? AND ${scopeCondition(scope)} ORDER BY seq LIMIT ?`);
    this.pageStmts = { 'with-line': page('with-line'), every: page('every') };
    this.openStmt = db.prepare(
      `SELECT MIN(seq) AS seq FROM items WHERE state IN (${OPEN_STATES.map((s) => `'${s}'`).join(', ')})`,
    );
    this.videoStmt = db.prepare(
      `SELECT MIN(seq) AS seq FROM items WHERE state = 'succeeded' AND kind NOT IN ('chat', 'responses')`,
    );
  }

  /**
   * Up to `limit` rows in the scope (by default, with a line), after `afterSeq`, read one at a time as the
   * caller pulls them: a caller that stops early (return()) has loaded no body past the last row it took.
   * Pull them all before the next await: the connection is busy until then.
   */
  iterate(afterSeq: number, limit: number, scope: ResultScope = 'with-line'): IterableIterator<ResultRow> {
    return this.pageStmts[scope].iterate(afterSeq, limit);
  }

  /** The manifest position of the first item whose line may still appear or change, or undefined. */
  firstOpenSeq(): number | undefined {
    const seqs = [this.openStmt.get()?.seq, this.videoStmt.get()?.seq].filter(
      (s): s is number => typeof s === 'number',
    );
    return seqs.length === 0 ? undefined : Math.min(...seqs);
  }
}
