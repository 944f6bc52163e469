// The judgement of one merged chunk's staged rows, in manifest order: each row under an id the job holds already, or
// under an id staged more than once, is judged against the row held before it (judgeAgainstPrior, as the SQLite
// adapter judges them): unchanged, a replacement, or a conflict. The first row of a repeated new id is new.
import {
  ingestConflict,
  judgeAgainstPrior,
  replacementEvent,
  type IngestEvent,
  type IngestSummary,
  type JudgedPrior,
} from '../ingest-rules.js';

interface Held extends JudgedPrior {
  source_file: string;
  source_line: number;
}

/** A staged row to judge, with the job's row under its id (the p_ columns; null when the job holds none). */
export interface StagedRow extends Held {
  ord: number;
  id: string;
  p_hash: string | null;
  p_state: string | null;
  p_file: string | null;
  p_line: number | null;
  p_orphan: number | null;
  p_reserved: number | null;
  p_actual: number | null;
}

export interface StagedJudgement {
  /** The staged rows the insert must write: those no row before them held the id of. */
  expectedNew: number;
  /** The ords of judged rows whose id the job did not hold: the insert leaves them out. */
  later: number[];
  /** The ords of the rows that replace what the job holds, one per id (the last one stands). */
  replacing: number[];
  /** The events the replacements log. */
  replaced: IngestEvent[];
}

/** Judges the rows in order; counts the unchanged, the replaced and the conflicts into `summary`. */
export function judgeStaged(judged: readonly StagedRow[], staged: number, summary: IngestSummary): StagedJudgement {
  const held = new Map<string, Held>();
  const later: number[] = [];
  const replacing = new Map<string, number>();
  const replaced: IngestEvent[] = [];
  let expectedNew = staged;
  for (const row of judged) {
    const prior: Held | undefined =
      held.get(row.id) ??
      (row.p_hash === null
        ? undefined
        : {
            content_hash: row.p_hash,
            state: row.p_state!,
            source_file: row.p_file!,
            source_line: row.p_line!,
            orphan: row.p_orphan,
            reserved_usd: row.p_reserved,
            actual_usd: row.p_actual,
          });
    const own: Held = {
      content_hash: row.content_hash,
      state: row.state,
      source_file: row.source_file,
      source_line: row.source_line,
    };
    if (prior === undefined) {
      held.set(row.id, own); // the first of a repeated new id: the merge inserts it
      continue;
    }
    expectedNew--;
    if (row.p_hash === null) later.push(row.ord);
    const judgement = judgeAgainstPrior(prior, row.content_hash);
    if (judgement === 'unchanged') {
      summary.unchanged++;
      held.set(row.id, prior);
    } else if (judgement === 'replace') {
      summary.replaced++;
      replacing.set(row.id, row.ord); // a replacement writes every column: the last one stands
      const event = replacementEvent(row.id, prior, row.state);
      if (event) replaced.push(event);
      held.set(row.id, own);
    } else {
      summary.conflicts.push(ingestConflict({ id: row.id, file: row.source_file, line: row.source_line }, prior));
      held.set(row.id, prior);
    }
  }
  return { expectedNew, later, replacing: [...replacing.values()], replaced };
}
