// The lines a run logs that an operator and a Batch API client are told differently. The CLI's operator
// runs gbatch commands, keeps a journal and starts later runs; a client of `gbatch serve` knows batches,
// requests and their files, and can run none of those commands. The pipeline says each such line through
// the voice its configuration hands it; a line both would be told alike stays one string in the pipeline,
// naming rows and their store with the voice's nouns.
import type { BudgetChoice, BudgetInForce } from '../../core/job-budget.js';
import type { JobCancel } from '../../journal/index.js';

/** How a deadline's closing line says what had to be cut after the grace. */
export type DeadlineCut =
  { kind: 'submissions'; count: number; graceS: number } | { kind: 'requests'; graceS: number } | { kind: 'none' };

export interface RunVoice {
  /** One row of work: an operator's item, a client's request. */
  readonly item: string;
  /** A count of rows: "3 item(s)". */
  items(count: number): string;
  /** The store of the job's rows, as a sentence names it: "the journal". */
  readonly journal: string;
  /** That store as a bare noun ("journal heartbeat"). */
  readonly store: string;

  /** Which budget is in force at the start (`decided.note` is the operator's line), or nothing to say. */
  budgetInForce(choice: BudgetChoice, decided: BudgetInForce): string | undefined;
  /** Rows the budget held back this pass, the first of them and why it did not fit. */
  deferred(count: number, firstId: string, reason: string): string;
  /** The job was cancelled: what happens to what is not sent and to what is. */
  jobCancelled(cancel: JobCancel, retryCancelled: string | undefined): string;

  /** Rows left mid-submission (`how`: "when the last runner stopped") are uncertain now. */
  uncertainNow(count: number, how: string): string;
  /** A row made uncertain (`what` says how): who decides it. */
  uncertainRow(what: string): string;
  /** A submission whose attempts ran out: the row stays pending. */
  leftPending(id: string, attempts: number): string;
  /** A download failed; it is tried again later. */
  downloadFailed(id: string, message: string): string;
  /** Failed or transiently refused rows a retry policy sends again (`which`: "retry 2", of `of` retries). */
  retryingLeftovers(count: number, which: string, of: number, ids: string): string;
  /** One failed or transiently refused row a retry policy sends again (`why`: what became of it). */
  retryingOne(kind: string, id: string, retry: number, of: number, why: string): string;
  /** Rows the job's store holds that no manifest of this run lists (`where`, `byState`, ids shown and more). */
  orphaned(total: number, where: string, byState: string, ids: string): string;
  /** A price drift another run saw: who saw it (the operator's "an earlier run saw "). */
  readonly earlierWitness: string;

  /** The run was interrupted (by `signal`, if any): nothing new went out. */
  interrupted(signal: string | undefined): string;
  /** The run lost its hold on the job's store at `location` (its lock, or its lease) to another runner. */
  lockLost(location: string): string;
  /** The gateway stopped answering connections (`head` says where and how often): what the run does. */
  unreachable(head: string): string;
  /** The deadline came, without a drain: requests in flight get the grace. */
  deadlineReached(at: string, graceS: number): string;
  /** The deadline came with a drain: submissions get the grace, tasks are still polled for `drain`. */
  deadlineDraining(at: string, graceS: number, drain: string): string;
  /** The deadline's closing line once the lanes are done: what was cut, whether tasks drained. */
  deadlineSummary(at: string, cut: DeadlineCut, drained: boolean): string;
}
