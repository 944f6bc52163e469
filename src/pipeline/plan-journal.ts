// `plan` read against the job's journal, as `run` would ingest into it: a row changed under an id the
// journal (or an earlier manifest of the job) already holds is refused with run's own rule and words,
// and only rows not yet sent count towards what remains to spend.
import type Database from 'better-sqlite3';
import type { ItemState } from '../core/states.js';
import { conflictProblem, judgeAgainstPrior, type IngestConflict, type Journal } from '../journal/index.js';
import { hashCanonicalRequest } from '../manifest/content-hash.js';
import type { ManifestRow } from '../manifest/types.js';

/** What a row is for the budget: still to be sent, already in the journal's hands, or refused. */
export type PlanStanding = 'remaining' | 'held' | 'conflict';

interface Prior { content_hash: string; state: string; source_file: string; source_line: number }

/** States whose rows a run would still send (their money is not in the journal's spend yet). */
const UNSENT: ReadonlySet<ItemState> = new Set(['pending', 'deferred']);

export class PlanAgainstJournal {
  readonly conflicts: IngestConflict[] = [];
  private readonly lookup: Database.Statement<[string], Prior> | undefined;
  /** Rows of earlier manifests of this plan not in the journal: run would have inserted them by then. */
  private readonly seen: Map<string, Prior> | undefined;

  constructor(journal: Journal | undefined, manifestCount: number) {
    this.lookup = journal?.db.prepare('SELECT content_hash, state, source_file, source_line FROM items WHERE id = ?');
    this.seen = manifestCount > 1 ? new Map() : undefined;
  }

  /** Whether anything is checked at all: a new single-manifest job needs no hashes. */
  get active(): boolean {
    return this.lookup !== undefined || this.seen !== undefined;
  }

  judge(row: ManifestRow): PlanStanding {
    if (!this.active) return 'remaining';
    const hash = hashCanonicalRequest(row.kind, row.requestJson);
    const earlier = this.seen?.get(row.id);
    const prior = earlier ?? this.lookup?.get(row.id);
    if (prior === undefined) {
      this.seen?.set(row.id, { content_hash: hash, state: 'pending', source_file: row.file, source_line: row.line });
      return 'remaining';
    }
    const judgement = judgeAgainstPrior(prior, hash);
    if (judgement === 'conflict') {
      this.conflicts.push({ id: row.id, file: row.file, line: row.line, journalFile: prior.source_file, journalLine: prior.source_line });
      return 'conflict';
    }
    // Counted once: a later manifest's copy of a row adds nothing to spend.
    if (earlier !== undefined) return 'held';
    const counted = judgement === 'replace' || UNSENT.has(prior.state as ItemState);
    this.seen?.set(row.id, judgement === 'replace' ? { content_hash: hash, state: 'pending', source_file: row.file, source_line: row.line } : prior);
    return counted ? 'remaining' : 'held';
  }

  problems(): string[] {
    return this.conflicts.map(conflictProblem);
  }
}
