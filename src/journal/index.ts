export { StaleTransitionError, type Change, type JobRecord, type Spend } from './change.js';
export {
  conflictProblem,
  skippedChangeLine,
  invalidRowHash,
  invalidRowText,
  judgeAgainstPrior,
  type IngestEntry,
  type IngestSummary,
  type IngestConflict,
  type PriorJudgement,
} from './ingest-rules.js';
export type {
  EventLogRecord,
  ItemEventRecord,
  JournalStore,
  JournalAdapter,
  JournalFileLoss,
  JournalRescue,
  IngestWriter,
  RunnerMembership,
  RunnerView,
  JobInput,
  KeptStartForecast,
  PriorRow,
  ManifestPrint,
  ManifestRecord,
  ReportSums,
  RowQuery,
  RowFacets,
  JobActivity,
  VideoTaskTimes,
  RowTimes,
  ReportRowSource,
  SumRow,
} from './store.js';
export { type Move } from './change.js';
export type {
  Coordination,
  JobMoney,
  Durability,
  ItemFilter,
  IngestOptions,
  JobCancel,
  JobTotals,
  JournalCapabilities,
  JournalQueries,
  JournalOperator,
  JournalOperatorReads,
  JournalReports,
  JournalRun,
  JournalRunReads,
  DecisionReader,
  ModelGroup,
  RunnerTakeover,
  Takeover,
} from './store.js';
export { isDatabaseUrl, openQueries, openStore, type OpenStoreOptions } from './open-store.js';
export type { KindCounts } from './kind-counts.js';
export { CommitQueue } from './commit-queue.js';
export { HEARTBEAT_MS, STALE_AFTER_MS, staleAfterMs } from './runner-standing.js';
export { judgeRunner, describeAge, type RunnerLiveness, type RunnerRecord } from './runner-liveness.js';
export type { Item, ItemError, ItemPatch } from './item.js';
export type { RunEnd, RunRecord } from './run-record.js';
export type { ResultRow, ResultScope } from './result-row.js';
export { eventLog } from './event-log.js';
export { autoRetryDue, dueForAutoRetry } from './auto-retry-due.js';
export type { ForgetOutcome, ListingRow, OrphanSummary } from './orphans.js';
export type { ServeCatalog, CatalogBatch, CatalogFile, CatalogPage } from './serve-catalog.js';
export { openServeCatalog } from './open-serve-catalog.js';
export { openJournalReader, type JournalJob, type JournalReader } from './journal-reader.js';
export {
  BatchLeaseLostError,
  BudgetExceededError,
  IngestLockWaitError,
  JobCancelledError,
  JournalBusyError,
  JournalError,
  JournalWriteBusyError,
  LockLostError,
  NewerSchemaError,
} from './errors.js';
export {
  settlementId,
  type JournalHistory,
  type JournalHistoryReads,
  type JournalSnapshot,
  type SettledCostRecord,
} from './settled-costs.js';
