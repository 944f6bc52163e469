export { Journal, StaleTransitionError, type Change, type JobRecord, type JournalOptions, type Spend } from './journal.js';
export { conflictProblem, IngestSession, judgeAgainstPrior, type IngestEntry, type IngestSummary, type IngestConflict, type PriorJudgement } from './ingest.js';
export { CommitQueue } from './commit-queue.js';
export { JournalBusyError, HEARTBEAT_MS, STALE_AFTER_MS, type LockTakeover } from './lock.js';
export type { Item, ItemError, ItemPatch } from './item.js';
export { lastRun, recordRunEnd, recordRunStart, type RunEnd, type RunRecord } from './runs.js';
export { ResultRows, type ResultRow } from './result-rows.js';
