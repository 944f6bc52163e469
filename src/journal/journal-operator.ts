// The operator's section of the journal contract: the decisions an operator makes on rows and on the job
// (`cancel`, `retry`, `forget`, `resolve`, the dashboard's actions) and what they read to decide: an item's
// events, the listing of rows, the rows a task id was ever given to. Row moves themselves go through the run's
// write path (JournalRun.decideAndApply, apply), guarded as every write is (store.ts).
import type { TaskIdHolder } from '../core/task-attach.js';
import type { ForgetOutcome, ListingRow } from './orphans.js';

/** The job's cancellation by the operator (`gbatch cancel`): no row of the job is sent until it is lifted. */
export interface JobCancel {
  /** When it was cancelled, on the journal's clock (the database's, for PostgreSQL). */
  at: number;
  reason: string;
}

export interface ItemEventRecord {
  at: number;
  event: string;
  from: string | null;
  to: string;
  detail: unknown;
}

/** What the operator's decisions read. A read-only opener answers these too (JournalQueries). */
export interface JournalOperatorReads {
  events(itemId: string): Promise<ItemEventRecord[]>;
  /** The ids among `failedIds` last moved to `failed` by an operator's abandon of an uncertain row. */
  abandonedWhileUncertain(failedIds: readonly string[]): Promise<Set<string>>;
  /** The rows that hold `taskId` now, and every row (and attempt) an accept or attach ever gave it, in log order. */
  taskIdHolders(taskId: string): Promise<TaskIdHolder[]>;
  /** The listing, state and attempts of each id given that the journal holds. */
  listings(ids: readonly string[]): Promise<Map<string, ListingRow>>;
}

/** The operator's writes that are not row moves: the job's cancellation, adopting and forgetting orphaned rows. */
export interface JournalOperator extends JournalOperatorReads {
  /**
   * Cancels the job (`reason` given; a job already cancelled keeps its first time) or lifts its
   * cancellation (undefined). While it is cancelled the journal refuses every `submit` (JobCancelledError).
   */
  setJobCancel(reason: string | undefined): Promise<JobCancel | undefined>;

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
}
