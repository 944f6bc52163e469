// The one journal interface the pipeline and the commands talk to. Two adapters implement it: SQLite
// (one file, one runner: the embedded default) and PostgreSQL (one database, many runners on a job).
// Every method is async; the SQLite adapter answers from its synchronous driver at once.
//
// One write path per adapter: every write of rows (applyTransitions, apply, decideAndApply, markStored, annotate)
// is decided by the pure planner (core/plan-changes.ts) and written by one function (SQLite: journal.ts writePlan;
// PostgreSQL: transitions.ts writePlan, or gbatch_apply_plan for a runner's one-round-trip batch). The guards of
// a write, each refusing the whole batch with nothing written, and the conformance case
// (test/journal/conformance/methods/) that holds both adapters to it:
// 1. Compare-and-set: a row not in the state the plan read or the change expects -> StaleTransitionError.
//    apply-transitions.ts "compare-and-set: a stale `expect` ..." and "a row moved by another connection ...".
// 2. Owner and lease: a runner that lost its standing writes nothing -> LockLostError (fence.ts "a fenced store
//    writes nothing more"). On PostgreSQL a row held by another runner is refused as stale to runners and
//    operators alike (test/journal/postgres/runners.test.ts "a row a runner holds is its own"); a note and
//    markStored take rows whoever holds them (the results file's writer stores the rows it wrote). SQLite has
//    one runner, its lock (membership.ts "one live runner: the next is refused", "takes over from a dead pid
//    ... writes nothing"); an operator's decision there is guarded by compare-and-set alone.
// 3. No new submission after a cancel: a batch holding a `submit` while the job is cancelled ->
//    JobCancelledError (set-job-cancel.ts "refuses every submit while the job is cancelled ...").
// 4. The job's money moves with its rows in the same transaction, by the planner's one money rule
//    (carried-booking.ts; summaries.ts "equal a recount ..."; annotate.ts "a note's charge moves the job's
//    money ...").
// 5. The budget: a batch that raises a reservation must leave settled + reserved within the job's budget ->
//    BudgetExceededError naming the first row that raised it; a write raising none is never refused, even past
//    a budget lowered since (budget-guard.ts). Both adapters refuse: the runner keeps under the budget before
//    it asks, so this guard catches racing runners (PostgreSQL) and operators' bookings (`resolve`).
import type { JobFileBudget } from '../core/job-budget.js';
import type { ItemState } from '../core/states.js';
import type { KindCounts } from './kind-counts.js';
import type { ForgetOutcome, ListingRow, OrphanSummary } from './orphans.js';
import type { SeenDrift } from '../core/seen-drift.js';
import type { JournalHistory, JournalHistoryReads } from './settled-costs.js';
import type { TaskIdHolder } from '../core/task-attach.js';
import type { Change, JobRecord, Move, Spend } from './change.js';
import type { IngestEntry, IngestSummary, JudgedPrior } from './ingest-rules.js';
import type { Item, ItemPatch } from './item.js';
import type { ResultRow, ResultScope } from './result-row.js';
import type { RunEnd, RunRecord } from './run-record.js';
import type { RunnerLiveness } from './runner-liveness.js';
import type { JobNotices } from './job-notices.js';

export type JournalAdapter = 'sqlite' | 'postgres';

export interface ItemFilter {
  states?: readonly ItemState[];
  kinds?: readonly string[];
  /** Only rows this runner holds (on a journal with one runner, every row). */
  mine?: boolean;
  /** Only rows that are not orphaned (src/core/orphans.ts): those a run may send. */
  notOrphaned?: boolean;
  /** Only rows the operator adopted: in none of the manifests, sent on the operator's word. */
  adopted?: boolean;
}

/**
 * What a sweep for runners that are gone found: their mid-request rows, now uncertain, and the rows this runner took
 * over.
 */
export interface Takeover {
  /** Rows left `submitting` (their request may have reached the gateway): now `uncertain`, as they were before. */
  madeUncertain: Item[];
  /** Tasks in flight and answers to download that this runner now holds (poll and download them). */
  adopted: Item[];
  /** Pending rows the gone runners had claimed, free again for any runner. */
  released: number;
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

export interface ItemEventRecord {
  at: number;
  event: string;
  from: string | null;
  to: string;
  detail: unknown;
}

/** One entry of the job's event log, as the report's timeline reads it (seq order). */
export interface EventLogRecord extends ItemEventRecord {
  seq: number;
  itemId: string;
}

/** What an id already holds, as ingest and `plan` judge a row arriving under it. */
export interface PriorRow extends JudgedPrior {
  source_file: string;
  source_line: number;
}

/** A page of the job's rows for a row browser: filters, then manifest order after a cursor. */
export interface RowQuery {
  states?: readonly ItemState[];
  kinds?: readonly string[];
  model?: string;
  /** lastError.code equals this (e.g. 'rate_limited', 'budget_exceeded'). */
  errorCode?: string;
  /** Rows whose id starts with this (exact id included). */
  idPrefix?: string;
  /** Only rows after this manifest position. */
  afterSeq?: number;
  /** At most this many rows (1..500). */
  limit: number;
}

/** The job's distinct models and error codes with their row counts, most rows first. */
export interface RowFacets {
  models: Array<{ model: string; rows: number }>;
  errorCodes: Array<{ code: string; rows: number }>;
}

/** The job's first submission and last activity (ms; both null until something was sent). */
export interface JobActivity {
  firstAt: number | null;
  lastAt: number | null;
}

/** When a row moved through its last attempt (ms; absent: not yet), as the row keeps it. */
export interface RowTimes {
  submittedAt?: number;
  acceptedAt?: number;
  succeededAt?: number;
  /** When it reached the finished state it is in (downloaded, failed, rejected). */
  finishedAt?: number;
}

/** What a report shows of a row (no request or answer bodies), with its last attempt's times. */
export type ReportRowSource = Pick<
  Item,
  | 'seq'
  | 'id'
  | 'kind'
  | 'model'
  | 'state'
  | 'taskId'
  | 'resolution'
  | 'finalResolution'
  | 'hasReferenceVideo'
  | 'estimateUsd'
  | 'actualUsd'
  | 'totalTokens'
  | 'outputPath'
  | 'sha256'
  | 'bytes'
  | 'lastError'
  | 'attempts'
  | 'autoResubmits'
  | 'gatewayChargeUsd'
  | 'unmetered'
  | 'priceSnapshot'
  | 'sourceFile'
  | 'sourceLine'
> & { times: RowTimes };

/** The job's video tasks that succeeded, and the median of their submission-to-success times (nearest rank). */
export interface VideoTaskTimes {
  count: number;
  medianMs: number | null;
}

export interface ManifestRecord {
  bytes: number;
  sha256: string;
  rows: number;
}

/** The rows of one kind, model and resolution among some states: how many, and the first in manifest order. */
export interface ModelGroup {
  kind: string;
  model: string | null;
  resolution: string | null;
  rows: number;
  first: { id: string; state: ItemState; sourceFile: string; sourceLine: number };
}
export interface ManifestPrint extends ManifestRecord {
  path: string;
}

/** The sums `report` and `status` show, for the whole job and per model and resolution. */
export interface SumRow {
  items: number;
  settled: number | null;
  estimated: number | null;
  actual: number | null;
  settled_estimated: number | null;
  reserved: number | null;
  over: number | null;
  gateway: number | null;
  gateway_n: number;
  tokens: number | null;
  unmetered?: number | null;
}
export interface ReportSums {
  total: SumRow;
  groups: Array<SumRow & { model: string; resolution: string | null }>;
}

/** One ingest pass: all of its rows, or (rolled back) none. */
export interface IngestWriter {
  /** Adds rows; may return before they are written (a Promise when the writer wants the caller to wait). */
  add(entries: readonly IngestEntry[]): void | Promise<void>;
  /**
   * Recorded with the rows, in the same transaction: manifests read whole need not be read again. They
   * replace the records of the pass before: the job's manifest set is this pass's (see unchangedRows()).
   */
  recordManifests(prints: readonly ManifestPrint[]): void | Promise<void>;
  /**
   * Writes and judges every row added so far (the pass stays open) and returns the summary commit()
   * would: read it, not `progress`, before choosing commit or rollback. An adapter that judges each row
   * as add() takes it (SQLite) returns its `progress`, already complete.
   */
  settle(): Promise<IngestSummary>;
  /**
   * Says that this pass read the whole of the job's wanted rows (all the manifests of a run): every row
   * the job held before that it did not read is orphaned, every orphaned or adopted row it read is listed
   * again (src/core/orphans.ts). One set-based statement, in the pass's transaction; call it last, before commit().
   * `withheld`: ids whose manifest row changed under them and was skipped (--skip-changed): their rows are
   * orphaned as well, read or not, so that no run sends their old content.
   */
  orphanUnread(withheld?: readonly string[]): Promise<void>;
  commit(): Promise<IngestSummary>;
  rollback(): Promise<IngestSummary>;
  readonly progress: IngestSummary;
  /**
   * After commit(): the job's rows by state and its spend as the commit left them, when the writer knows
   * them without reading the rows (PostgreSQL: a first ingest); undefined otherwise.
   */
  committedTotals(): JobTotals | undefined;
}

export interface JobTotals {
  counts: Record<ItemState, number>;
  spend: Spend;
}

/** A runner of the job as `status` shows it. */
export interface RunnerView {
  runnerId: string;
  pid: number;
  host: string;
  startedAt: number;
  heartbeatAt: number;
  /** Rows it holds (submitting, or tasks it polls and downloads). */
  rows: number;
  liveness: RunnerLiveness;
  /** When it acknowledged the job's cancellation (it sends nothing more from then on); null: not yet. */
  cancelSeenAt?: number | null;
}

/** The job's cancellation by the operator (`gbatch cancel`): no row of the job is sent until it is lifted. */
export interface JobCancel {
  /** When it was cancelled, on the journal's clock (the database's, for PostgreSQL). */
  at: number;
  reason: string;
}

export interface RunnerTakeover {
  pid: number;
  host: string;
  heartbeatAt: number;
}

/** A journal lost under a live run: its file deleted (or moved away), or replaced by another file. */
export type JournalFileLoss = 'deleted' | 'replaced';

/** What a journal lost under a live run holds that the operator must know, and where it was saved. */
export interface JournalRescue {
  /** Where a complete copy of the run's journal was saved, or why it could not be. */
  copy: { path: string } | { error: string };
  /** The first rows sent that hold task ids, and how many there are in all. */
  sent: { rows: Array<{ id: string; taskId: string }>; total: number };
  /** The first rows that may have reached the gateway (submitting, uncertain), and how many there are in all. */
  unsure: { ids: string[]; total: number };
}

/** This process's standing as a runner of the job: a lock (SQLite) or a lease among many (PostgreSQL). */
export interface RunnerMembership {
  /** Joins (or takes the job over from a runner that is gone); throws JournalBusyError when it may not. */
  acquire(): Promise<RunnerTakeover | undefined>;
  /** Refreshes the heartbeat; false when this runner lost its standing (its lease expired, its lock was taken). */
  heartbeat(): Promise<boolean>;
  release(): Promise<void>;
  /** Stops this process from releasing what it lost: it belongs to someone else now. */
  forget(): void;
  /**
   * Whether the journal itself was lost under this runner: a file deleted or replaced at its path (one
   * stat). A database is not lost that way (its loss is a lease lost: heartbeat() says it): never.
   */
  lost(): JournalFileLoss | undefined;
  /** The job's runners, live and dead (status). */
  runners(): Promise<RunnerView[]>;
  /**
   * Takes over from runners whose lease expired (and rows no runner holds): their `submitting` rows
   * become `uncertain`, never resent blindly; their tasks in flight and answers to download become this
   * runner's. One journal with one runner has nothing to sweep.
   */
  sweep(): Promise<Takeover>;
  /**
   * The work of the job that is not this runner's: open rows other runners hold (they will finish them,
   * or stop and be swept), and pending rows no live runner has claimed (this one may send them).
   */
  othersWork(): Promise<{ held: number; claimable: number }>;
  /**
   * When this runner's standing was last confirmed, on the local clock (performance.now ms); it may send only while
   * fresh.
   */
  confirmedAt(): number;
  /** Records that this runner saw the job's cancellation and sends nothing more (`gbatch cancel` waits for it). */
  acknowledgeCancel(): Promise<void>;
}

export interface IngestOptions {
  /**
   * A line for the operator while the pass waits for another runner's ingest (who holds the lock, what is done about
   * it).
   */
  say?(line: string): void;
}

/**
 * What runners sharing one job agree through the journal (a database). A journal that one runner holds
 * at a time answers for that one runner (one-runner.ts); the pipeline asks `capabilities.sharedRunners`
 * and paces and pauses on its own without it.
 */
export interface Coordination {
  /** Every runner of the job stops submitting (the gateway's balance ran out: a 402). */
  stopSubmissions(reason: 'balance'): Promise<void>;
  /** Whether a runner stopped the job's submissions since this one joined. */
  submissionsStopped(): Promise<'balance' | undefined>;
  /**
   * Whether a runner ever stopped the job's submissions at a 402, joined before or after this one (`gbatch
   * serve`: a batch that was live at a 402 sends no more, whichever server runs it next).
   */
  stoppedAtBalance(): Promise<boolean>;
  /**
   * The account's next send under a shared `--rpm` (one send per `intervalMs` across all runners):
   * how many ms to wait before sending, counted from now.
   */
  takeSendSlot(account: string, intervalMs: number): Promise<number>;
  /** A 429's Retry-After, shared: the account's requests wait at least `ms` from now, on every runner. */
  pauseAccount(account: string, ms: number): Promise<void>;
  /** How many ms the account stays paused from now (0: open). */
  accountPause(account: string): Promise<number>;
  /** Runs `work` while no other runner of the job runs work of that name (the results file's rebuild). */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * The settled prefix of the results file `file` (a host's path) that the job's last rebuild recorded,
   * when it was recorded since this runner joined: read under exclusive('results').
   */
  resultsPrefix(file: string): Promise<ResultsPrefix | undefined>;
  /** Records what a rebuild left, so that the next one, on any runner, appends to it instead of rewriting it. */
  recordResultsPrefix(file: string, prefix: ResultsPrefix): Promise<void>;
  /**
   * The job's money as the journal's budget check sees it (every runner's reservations and settlements),
   * and whether any row of the job is in flight (submitting, submitted, running): its reservation may
   * still settle or be released, so a runner short of headroom waits instead of deferring.
   */
  jobMoney(): Promise<JobMoney>;
}

/**
 * The job's money, its budget, whether any row is in flight, and the group ratios seen (the same read: see
 * jobMoney()).
 */
export interface JobMoney extends Spend {
  inFlight: boolean;
  /** The job's budget now (undefined: none): another run of the job may have changed it. */
  budgetUsd: number | undefined;
  /** Every settled video the gateway was seen charging above the table: one per account and model (drifts()). */
  drifts: SeenDrift[];
}

/**
 * What a rebuild of results.jsonl may reuse from the file the last one wrote: its first `bytes` bytes hold
 * the lines of every item up to `seq`, all settled. The file is identified by inode, size and mtime; a
 * file changed by anyone else is not reused.
 */
export interface ResultsPrefix {
  seq: number;
  bytes: number;
  file: { ino: number; size: number; mtimeMs: number };
}

/**
 * What reports and views read of a job's journal (`report`, `status`, the live view, `plan`, a dashboard):
 * sums, pages of the event log and of results rows, an item's history, listings, runners. Nothing here
 * changes the journal; the read-only opener (openQueries) returns only this.
 */
export interface JournalQueries extends JournalHistoryReads {
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
  /** Rows by kind of work and state (every kind and state present, zeros included): counts() split by kind. */
  countsByKind(): Promise<KindCounts>;
  spend(): Promise<Spend>;
  /** Items in any of `states`, in manifest order, after `afterSeq` (limit < 0: all). */
  list(states: readonly ItemState[], limit?: number, afterSeq?: number): Promise<Item[]>;
  /** Items in manifest order, read in pages so a million rows never sit in memory. */
  iterate(filter?: ItemFilter, pageSize?: number): AsyncGenerator<Item>;
  events(itemId: string): Promise<ItemEventRecord[]>;
  /** The job's event log after `afterSeq`, in seq order, at most `limit` entries: read in pages (see eventLog()). */
  eventLogPage(afterSeq: number, limit: number): Promise<EventLogRecord[]>;
  /** Read from the job's summary rows, not from its rows: money to the nano-dollar. */
  reportSums(): Promise<ReportSums>;
  /** A page of the job's rows for a row browser: filters, then manifest order after a cursor. */
  rowPage(query: RowQuery): Promise<Item[]>;
  /** The job's distinct models and error codes with their row counts, for a browser's filters (from summaries). */
  rowFacets(): Promise<RowFacets>;
  /** The job's first and last activity (ms; null when none): from a summary or an index, never a scan of the log. */
  activity(): Promise<JobActivity>;
  /** How many video tasks succeeded and their median time from submission to success, from a summary. */
  videoTaskTimes(): Promise<VideoTaskTimes>;
  /**
   * Up to `limit` rows after `afterSeq` in manifest order as a report shows them, with their times (a million rows
   * are read for a report: only what it shows); undefined when the journal keeps no times (fold its event log).
   */
  reportRows(afterSeq: number, limit: number): Promise<ReportRowSource[] | undefined>;
  /** The time (ms) of each item's last `submit`, for the ids given. */
  lastSubmitTimes(ids: readonly string[]): Promise<Map<string, number>>;
  /** The ids among `failedIds` last moved to `failed` by an operator's abandon of an uncertain row. */
  abandonedWhileUncertain(failedIds: readonly string[]): Promise<Set<string>>;
  /** The rows that hold `taskId` now, and every row (and attempt) an accept or attach ever gave it, in log order. */
  taskIdHolders(taskId: string): Promise<TaskIdHolder[]>;
  priors(ids: readonly string[]): Promise<Map<string, PriorRow>>;
  /**
   * The kinds, models and resolutions of the rows in `states`, in the order of their first rows (the pricing check).
   */
  modelGroups(states: readonly ItemState[]): Promise<ModelGroup[]>;
  /** The records of the manifests the job's last ingest read whole, for the paths given (all of them without). */
  manifestRecords(paths?: readonly string[]): Promise<Map<string, ManifestRecord>>;

  /** The orphaned rows that wait for an operator (src/core/orphans.ts): counts by state, and the first `limit` ids. */
  orphans(limit: number): Promise<OrphanSummary>;
  /** The listing, state and attempts of each id given that the journal holds. */
  listings(ids: readonly string[]): Promise<Map<string, ListingRow>>;

  /**
   * Rows in the scope (by default those that have a results line), after `afterSeq`, at most `limit` and about
   * `maxBytes` of bodies (at least one).
   */
  resultRows(afterSeq: number, limit: number, maxBytes: number, scope?: ResultScope): Promise<ResultRow[]>;
  /** The manifest position of the first item whose line may still appear or change. */
  firstOpenSeq(): Promise<number | undefined>;

  /** The job's runners, live and dead, as `status` shows them. */
  runners(): Promise<RunnerView[]>;
  lastRun(): Promise<RunRecord | undefined>;
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

/** What a run writes: the queries, and every change to the job, its rows, its runners and its runs. */
export interface JournalStore extends JournalQueries, JournalHistory {
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

  saveJob(job: JobInput): Promise<void>;
  /**
   * Cancels the job (`reason` given; a job already cancelled keeps its first time) or lifts its
   * cancellation (undefined). While it is cancelled the journal refuses every `submit` (JobCancelledError).
   */
  setJobCancel(reason: string | undefined): Promise<JobCancel | undefined>;

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
  /** The largest ratio seen per account and model (recordDrift), in account and model order. */
  drifts(): Promise<SeenDrift[]>;
  /**
   * Reads, decides and applies under one write lock: what `decide` saw is what is changed. The changes
   * `decide` returns are applied atomically with its reads.
   */
  decideAndApply<T>(
    decide: (
      reader: Pick<JournalQueries, 'get' | 'list' | 'iterate' | 'abandonedWhileUncertain'>,
    ) => Promise<{ changes: Change[]; result: T }>,
  ): Promise<T>;

  /**
   * An ingest pass; on a database several runners share, `say` hears what its wait for the job's ingest lock is for.
   */
  beginIngest(options?: IngestOptions): Promise<IngestWriter>;

  /**
   * The operator's word (`gbatch retry <id>`): the orphaned rows among `ids` are adopted, sent as if listed. Returns
   * those changed.
   */
  adopt(ids: readonly string[]): Promise<string[]>;
  /**
   * Removes orphaned rows never sent, with their events (`gbatch forget`): all of `ids`, or none and why
   * (forgetRefusal).
   */
  forget(ids: readonly string[]): Promise<ForgetOutcome>;

  recordRunStart(): Promise<number>;
  recordRunEnd(id: number, end: RunEnd): Promise<void>;
}
