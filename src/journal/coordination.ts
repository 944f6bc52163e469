// What the runners sharing one job agree through the journal: stops, pacing, pauses, turns at exclusive work
// and what one turn hands to the next, and the job's money as the budget check sees it.
import type { SeenDrift } from '../core/seen-drift.js';
import type { Spend } from './change.js';

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
   * What the last turn at exclusive work recorded under `key`, on any runner of the job, when it was recorded
   * since this runner joined: read under the same exclusive(). The journal keeps the text as it was given and
   * never reads it (the results file's rebuild hands its settled prefix on this way: results/settled-prefix.ts).
   */
  handover(key: string): Promise<string | undefined>;
  /** Records, durably, what this turn leaves for the next one under `key` (replacing what was there). */
  recordHandover(key: string, text: string): Promise<void>;
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
