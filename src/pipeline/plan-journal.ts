// `plan` read against the job's journal, as `run` would ingest into it: a row changed under an id the
// journal (or an earlier manifest of the job) already holds is refused with run's own rule and words,
// and only rows `run` would send count towards what remains to spend: the rows of these manifests not yet
// sent, and the rows the operator adopted (src/core/orphans.ts); a row in none of them is not sent.
import { SENDABLE_STATES, wouldSend } from '../core/orphans.js';
import type { ItemState } from '../core/states.js';
import {
  conflictProblem,
  judgeAgainstPrior,
  skippedChangeLine,
  type IngestConflict,
  type Item,
  type JournalQueries,
  type PriorRow,
} from '../journal/index.js';
import { hashCanonicalRequest } from '../manifest/content-hash.js';
import type { ManifestRow } from '../manifest/types.js';

/** What a row is for the budget: still to be sent, already in the journal's hands, or refused. */
export type PlanStanding = 'remaining' | 'held' | 'conflict';

export class PlanAgainstJournal {
  readonly conflicts: IngestConflict[] = [];
  /** Rows of earlier manifests of this plan not in the journal: run would have inserted them by then. */
  private readonly seen: Map<string, PriorRow> | undefined;
  /** Rows the operator adopted that a run would send, until a manifest row under the same id is judged. */
  private readonly adopted = new Map<string, Item>();

  constructor(
    private readonly journal: JournalQueries | undefined,
    manifestCount: number,
  ) {
    this.seen = manifestCount > 1 ? new Map() : undefined;
  }

  /** Whether anything is checked at all: a new single-manifest job needs no hashes. */
  get active(): boolean {
    return this.journal !== undefined || this.seen !== undefined;
  }

  /** Reads the adopted rows a run would send (an operator's few): before the first judgeRows(). */
  async loadAdopted(): Promise<void> {
    if (!this.journal) return;
    for await (const item of this.journal.iterate({ states: SENDABLE_STATES, adopted: true }))
      this.adopted.set(item.id, item);
  }

  /** The adopted rows no manifest row named: a run sends them too. */
  adoptedOutside(): Item[] {
    return [...this.adopted.values()];
  }

  /** Judges rows in manifest order; the journal is asked once for the whole batch. */
  async judgeRows(rows: readonly ManifestRow[]): Promise<PlanStanding[]> {
    if (!this.active) return rows.map(() => 'remaining');
    const unknown = rows.filter((row) => !this.seen?.has(row.id)).map((row) => row.id);
    const held = this.journal && unknown.length > 0 ? await this.journal.priors(unknown) : new Map<string, PriorRow>();
    return rows.map((row) => this.judge(row, held));
  }

  private judge(row: ManifestRow, held: ReadonlyMap<string, PriorRow>): PlanStanding {
    const hash = hashCanonicalRequest(row.kind, row.requestJson);
    this.adopted.delete(row.id);
    const earlier = this.seen?.get(row.id);
    const prior = earlier ?? held.get(row.id);
    if (prior === undefined) {
      this.seen?.set(row.id, { content_hash: hash, state: 'pending', source_file: row.file, source_line: row.line });
      return 'remaining';
    }
    const judgement = judgeAgainstPrior(prior, hash);
    if (judgement === 'conflict') {
      this.conflicts.push({
        id: row.id,
        file: row.file,
        line: row.line,
        journalFile: prior.source_file,
        journalLine: prior.source_line,
      });
      return 'conflict';
    }
    // Counted once: a later manifest's copy of a row adds nothing to spend.
    if (earlier !== undefined) return 'held';
    // A row of the manifests is listed by the run's ingest, whatever it was before.
    const counted = judgement === 'replace' || wouldSend(prior.state as ItemState, 'listed');
    this.seen?.set(
      row.id,
      judgement === 'replace'
        ? { content_hash: hash, state: 'pending', source_file: row.file, source_line: row.line }
        : prior,
    );
    return counted ? 'remaining' : 'held';
  }

  /** One line a changed row: the refusal `run` makes, or (--skip-changed) the row it skips. */
  problems(skipChanged = false): string[] {
    return this.conflicts.map(skipChanged ? skippedChangeLine : conflictProblem);
  }
}
