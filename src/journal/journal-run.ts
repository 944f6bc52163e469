// The run's section of the journal contract: what `gbatch run` (and a serve batch's run) reads and writes, from
// its ingest to its last results rebuild. 39 members, counted with what they inherit from JournalRunReads
// (18: the reads a read-only opener answers too) and with the handles to sections of their own (membership,
// coordination, notices, capabilities) counted as one each; with those handles' own members (10, 10, 3, 2) and an
// ingest pass's (IngestWriter, 8), 72 (test/journal/contract-size.test.ts keeps the count).
//
// What it leaves out, each in a section of its own that an adapter implements beside it (store.ts composes them):
// - the report's and the dashboard's reads (sums, pages of rows and of the event log, timings, runners, past
//   runs): JournalReports, journal-reports.ts;
// - the operator's decisions on rows and on the job (cancel, adopt, forget, and the reads they decide on: an
//   item's events, listings, the holders of a task id): JournalOperator, journal-operator.ts;
// - the results file's identity (inode, size, mtime of the prefix a rebuild may keep): the results-file code
//   owns it (pipeline/results/settled-prefix.ts); the journal carries it as an opaque hand-over (Coordination).
import type { ItemState } from '../core/states.js';
import type { JobFileBudget } from '../core/job-budget.js';
import type { SeenDrift } from '../core/seen-drift.js';
import type { Change, JobRecord, Move, Spend } from './change.js';
import type { Coordination } from './coordination.js';
import type { IngestOptions, IngestWriter, ManifestRecord } from './ingest-writer.js';
import type { JudgedPrior } from './ingest-rules.js';
import type { Item, ItemPatch } from './item.js';
import type { JobNotices } from './job-notices.js';
import type { JobCancel, JournalOperatorReads } from './journal-operator.js';
import type { OrphanSummary } from './orphans.js';
import type { ResultRow, ResultScope } from './result-row.js';
import type { RunEnd } from './run-record.js';
import type { RunnerMembership } from './runner-membership.js';
import type { StateKindFilter } from './state-kind-filter.js';

export type JournalAdapter = 'sqlite' | 'postgres';

export interface ItemFilter extends StateKindFilter {
  /** Only rows this runner holds (on a journal with one runner, every row). */
  mine?: boolean;
  /** Only rows that are not orphaned (src/core/orphans.ts): those a run may send. */
  notOrphaned?: boolean;
  /** Only rows the operator adopted: in none of the manifests, sent on the operator's word. */
  adopted?: boolean;
}

export interface JobInput {
  name: string;
  manifest: string;
  options: Record<string, unknown>;
  /** The budget in force from now on; undefined: none. */
  budgetUsd?: number | undefined;
  /** What the job file says of the budget now, recorded for the next run (undefined: leave the record as it is). */
  jobFileBudget?: JobFileBudget | undefined;
}

/** What an id already holds, as ingest and `plan` judge a row arriving under it. */
export interface PriorRow extends JudgedPrior {
  source_file: string;
  source_line: number;
}

/** The rows of one kind, model and resolution among some states: how many, and the first in manifest order. */
export interface ModelGroup {
  kind: string;
  model: string | null;
  resolution: string | null;
  rows: number;
  first: { id: string; state: ItemState; sourceFile: string; sourceLine: number };
}

/** What a journal lost under a live run holds that the operator must know, and where it was saved. */
export interface JournalRescue {
  /** Where a complete copy of the run's journal was saved, or why it could not be. */
  copy: { path: string } | { error: string };
  /** The first rows sent that hold task ids, and how many there are in all. */
  sent: { rows: Array<{ id: string; taskId: string }>; total: number };
  /** The first rows that may have reached the gateway (submitting, uncertain), and how many there are in all. */
  unsure: { ids: string[]; total: number };
}

/**
 * How a commit reaches the disk. `sync`: durable before it is reported done (the default). `relaxed`:
 * done once committed; a crash of the process loses none of it, a power cut before the next flush() or
 * synced commit may (for writes whose loss costs only repeated work). A journal opened `relaxed` never
 * waits on the disk: for benchmarks only.
 */
export type Durability = 'sync' | 'relaxed';

/** What an adapter can do that another cannot: the pipeline asks these, never which adapter it holds. */
export interface JournalCapabilities {
  /**
   * Several runners may share the job (a database): their pacing, pauses, stops, results file and
   * notifications are agreed through `coordination` and `notices`. Without it one runner holds the job,
   * and its own pacing and pauses are the whole truth.
   */
  readonly sharedRunners: boolean;
  /**
   * The journal still takes notes from a runner that lost its standing (noteUnrecordedTasks/Answers): a
   * database, where another runner holds the job now. A file that was deleted, replaced or taken cannot.
   */
  readonly notesAfterLoss: boolean;
}

/** What a row's decision reads under decideAndApply's write lock. */
export type DecisionReader = Pick<JournalRunReads, 'get' | 'list' | 'iterate'> &
  Pick<JournalOperatorReads, 'abandonedWhileUncertain'>;

/**
 * What a run reads: its job, its rows, what ingest judges them against, and the rows results.jsonl is built from.
 * A read-only opener answers these too (JournalQueries).
 */
export interface JournalRunReads {
  readonly adapter: JournalAdapter;
  /** How messages name this journal: a path, or a URL without its password. */
  readonly location: string;
  readonly capabilities: JournalCapabilities;
  close(): Promise<void>;

  getJob(): Promise<JobRecord | undefined>;
  /** The job's cancellation, undefined while it is not cancelled: one cheap read, which a live runner repeats. */
  jobCancel(): Promise<JobCancel | undefined>;

  get(id: string): Promise<Item | undefined>;
  counts(): Promise<Record<ItemState, number>>;
  spend(): Promise<Spend>;
  /** Items in any of `states`, in manifest order, after `afterSeq` (limit < 0: all). */
  list(states: readonly ItemState[], limit?: number, afterSeq?: number): Promise<Item[]>;
  /** Items in manifest order, read in pages so a million rows never sit in memory. */
  iterate(filter?: ItemFilter, pageSize?: number): AsyncGenerator<Item>;
  priors(ids: readonly string[]): Promise<Map<string, PriorRow>>;
  /**
   * The kinds, models and resolutions of the rows in `states`, in the order of their first rows (the pricing check).
   */
  modelGroups(states: readonly ItemState[]): Promise<ModelGroup[]>;
  /** The records of the manifests the job's last ingest read whole, for the paths given (all of them without). */
  manifestRecords(paths?: readonly string[]): Promise<Map<string, ManifestRecord>>;

  /** The orphaned rows that wait for an operator (src/core/orphans.ts): counts by state, and the first `limit` ids. */
  orphans(limit: number): Promise<OrphanSummary>;

  /**
   * Rows in the scope (by default those that have a results line), after `afterSeq`, at most `limit` and about
   * `maxBytes` of bodies (at least one).
   */
  resultRows(afterSeq: number, limit: number, maxBytes: number, scope?: ResultScope): Promise<ResultRow[]>;
  /** The manifest position of the first item whose line may still appear or change. */
  firstOpenSeq(): Promise<number | undefined>;
  /** The largest ratio seen per account and model (JournalRun.recordDrift), in account and model order. */
  drifts(): Promise<SeenDrift[]>;
}

/** What a run reads and writes: its reads, its standing among the job's runners, and every change to its rows. */
export interface JournalRun extends JournalRunReads {
  now(): number;
  /** From now on every write throws `reason`: the journal is no longer this process's to change. */
  fence(reason: Error): void;
  /**
   * After membership.lost(): the run's journal, still open, saved where the operator can resume from it,
   * with the rows they must know of. Undefined when the journal was not lost (a database never is).
   */
  rescue(): Promise<JournalRescue | undefined>;

  readonly membership: RunnerMembership;
  /** What runners sharing the job agree through the journal; only used where `capabilities.sharedRunners`. */
  readonly coordination: Coordination;
  /** Which runner sends each of the job's notifications; only used where `capabilities.sharedRunners`. */
  readonly notices: JobNotices;

  /**
   * Saves the job's record; the start forecast it keeps stays when `job.options` carry none (JournalHistory's
   * keepStartForecast).
   */
  saveJob(job: JobInput): Promise<void>;

  /**
   * Pending rows after `afterSeq` for this runner to send, in manifest order, claimed so that no other
   * runner of the job takes them meanwhile (a database skips rows another runner has locked or claimed).
   */
  claimPending(limit: number, afterSeq: number): Promise<Item[]>;
  /**
   * At the start of a run: every row a stopped runner left `submitting` becomes `uncertain` (its request
   * may have reached the gateway; never resent blindly). On a database, only rows of runners that are gone.
   */
  recoverInterrupted(): Promise<Item[]>;

  /**
   * Applies the changes in ONE transaction, each checked by the transition table and written
   * compare-and-set on its from-state; any failure rolls all back. `durability: 'relaxed'`: the commit
   * may return before it is on disk (flush() makes it durable).
   */
  applyTransitions(changes: readonly Change[], options?: { durability?: Durability }): Promise<Move[]>;
  /** As applyTransitions, returning each item as it now is. */
  apply(changes: readonly Change[]): Promise<Item[]>;
  /** The `store` transition for many answered rows whose results line is durable. */
  markStored(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): Promise<void>;
  /**
   * Notes in the event log task ids the gateway gave this runner after it lost its standing (`task-unrecorded`
   * events: no row moves). Only where `capabilities.notesAfterLoss`.
   */
  noteUnrecordedTasks(tasks: ReadonlyArray<{ id: string; taskId: string }>): Promise<void>;
  /**
   * Notes in the event log chat/responses answers this runner received after it lost its standing
   * (`answer-unrecorded` events, the answer whole: no row moves), for `gbatch resolve --recorded-answer`.
   * Only where `capabilities.notesAfterLoss`.
   */
  noteUnrecordedAnswers(answers: ReadonlyArray<{ id: string; attempt: number; answer: unknown }>): Promise<void>;
  /**
   * Patches fields without a state change; logged as a `note` event. Planned as a move is (a `reservedUsd` is the
   * attempt's, the job's money moves with it); the row keeps its owner.
   */
  annotate(id: string, patch: ItemPatch, note: string): Promise<void>;
  /** Makes every `relaxed` commit so far durable. */
  flush(): Promise<void>;
  /**
   * Keeps a settled video the gateway charged above the table, durable before it returns: for its account and
   * model, the one with the largest ratio stays (a write never lowers it). Every runner of the job reads them.
   */
  recordDrift(seen: SeenDrift): Promise<void>;
  /**
   * Reads, decides and applies under one write lock: what `decide` saw is what is changed. The changes
   * `decide` returns are applied atomically with its reads.
   */
  decideAndApply<T>(decide: (reader: DecisionReader) => Promise<{ changes: Change[]; result: T }>): Promise<T>;

  /**
   * An ingest pass; on a database several runners share, `say` hears what its wait for the job's ingest lock is for.
   */
  beginIngest(options?: IngestOptions): Promise<IngestWriter>;

  recordRunStart(): Promise<number>;
  recordRunEnd(id: number, end: RunEnd): Promise<void>;
}
