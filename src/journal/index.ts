export { Journal, StaleTransitionError, type Change, type JobRecord, type JournalOptions, type Spend } from './journal.js';
export { IngestSession, type IngestEntry, type IngestSummary, type IngestConflict } from './ingest.js';
export { CommitQueue } from './commit-queue.js';
export { JournalBusyError, HEARTBEAT_MS, STALE_AFTER_MS, type LockTakeover } from './lock.js';
export type { Item, ItemError, ItemPatch } from './item.js';
export { ResultRows, type ResultRow } from './result-rows.js';
