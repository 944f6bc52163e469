export { Journal, StaleTransitionError, type AnswerRow, type Change, type JobRecord, type JournalOptions, type Spend } from './journal.js';
export { IngestSession, type IngestEntry, type IngestSummary, type IngestConflict } from './ingest.js';
export { CommitQueue } from './commit-queue.js';
export { JournalBusyError, LockLostError, HEARTBEAT_MS, STALE_AFTER_MS, staleAfterMs, type LockTakeover } from './lock.js';
export { judgeRunner, describeAge, type RunnerLiveness, type RunnerRecord } from './runner-liveness.js';
export type { Item, ItemError, ItemPatch } from './item.js';
