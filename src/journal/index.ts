export { Journal, StaleTransitionError, type Change, type JobRecord, type JournalOptions, type Spend } from './sqlite/journal.js';
export { conflictProblem, IngestSession, judgeAgainstPrior, type IngestEntry, type IngestSummary, type IngestConflict, type PriorJudgement } from './sqlite/ingest-session.js';
export { CommitQueue } from './commit-queue.js';
export { JournalBusyError, LockLostError, HEARTBEAT_MS, STALE_AFTER_MS, staleAfterMs, type LockTakeover } from './sqlite/lock.js';
export { judgeRunner, describeAge, type RunnerLiveness, type RunnerRecord } from './runner-liveness.js';
export type { Item, ItemError, ItemPatch } from './item.js';
export { lastRun, recordRunEnd, recordRunStart, type RunEnd, type RunRecord } from './runs.js';
export { ResultRows, type ResultRow } from './result-rows.js';
