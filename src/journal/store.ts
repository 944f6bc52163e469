// The journal contract, in sections. Two adapters implement every section: SQLite (one file, one runner: the
// embedded default) and PostgreSQL (one database, many runners on a job). Every method is async; the SQLite
// adapter answers from its synchronous driver at once. A caller is typed by the sections it uses:
// - JournalRun (journal-run.ts, 39 members): what a run reads and writes; its reads, JournalRunReads, are 17 of them;
// - JournalReports (journal-reports.ts, 11): the report's and the dashboard's reads, which an adapter may answer
//   from its summaries;
// - JournalOperator (journal-operator.ts, 7): the operator's decisions and the reads they decide on;
// - and the handles a run holds, each a small interface of its own: RunnerMembership (runner-membership.ts),
//   Coordination (coordination.ts), JobNotices (job-notices.ts), IngestWriter (ingest-writer.ts).
// JournalStore is every section (what an adapter opens for writing); JournalQueries is every section's reads
// (what the read-only opener, openQueries, returns).
// - JournalHistory (settled-costs.ts): the cost history of settled rows, which forecasts read.
// A new concern of the journal is a section of its own like the history: an interface in its own file, added to
// JournalStore, its reads to JournalQueries; never new members of the run's section.
//
// One write path per adapter: every write of rows (applyTransitions, apply, decideAndApply, markStored, annotate)
// is decided by the pure planner (core/plan-changes.ts) and written by one function (SQLite: journal.ts writePlan;
// PostgreSQL: the SQL function gbatch_apply_plan, batch-apply.ts, which holds its guards; a batch planned on the
// rows' heads, transitions.ts, calls it as a runner's one-round-trip batch does). The guards of
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
import type { JournalOperator, JournalOperatorReads } from './journal-operator.js';
import type { JournalReports } from './journal-reports.js';
import type { JournalRun, JournalRunReads } from './journal-run.js';
import type { JournalHistory, JournalHistoryReads } from './settled-costs.js';
export type { KeptStartForecast } from './settled-costs.js';

export type {
  DecisionReader,
  Durability,
  ItemFilter,
  JobInput,
  JournalAdapter,
  JournalCapabilities,
  JournalRescue,
  JournalRun,
  JournalRunReads,
  ModelGroup,
  PriorRow,
} from './journal-run.js';
export type {
  EventLogRecord,
  JobActivity,
  JournalReports,
  ReportRowSource,
  ReportSums,
  RowFacets,
  RowQuery,
  RowTimes,
  SumRow,
  VideoTaskTimes,
} from './journal-reports.js';
export type { ItemEventRecord, JobCancel, JournalOperator, JournalOperatorReads } from './journal-operator.js';
export type { IngestOptions, IngestWriter, JobTotals, ManifestPrint, ManifestRecord } from './ingest-writer.js';
export type { Coordination, JobMoney } from './coordination.js';
export type { JournalFileLoss, RunnerMembership, RunnerTakeover, RunnerView, Takeover } from './runner-membership.js';

/**
 * What reports and views read of a job's journal (`report`, `status`, the live view, `plan`, a dashboard): the
 * reads of every section. Nothing here changes the journal; the read-only opener (openQueries) returns only this.
 */
export interface JournalQueries extends JournalRunReads, JournalReports, JournalOperatorReads, JournalHistoryReads {}

/** Every section: what an adapter opened for writing answers. */
export interface JournalStore extends JournalRun, JournalReports, JournalOperator, JournalHistory {}
