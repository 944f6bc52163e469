// In-memory mirror of the journal's money, updated synchronously so concurrent claims cannot overshoot.
// Among runners sharing one job it follows the journal's job totals (observe()): the other runners'
// reservations and settlements are the job's too, and rows taken over from a runner that is gone were
// reserved by it, so only the journal's totals say what they hold. The job's budget is read with them:
// lowered (or raised) by another run of the job, it is the one this runner reserves against from then on.
import { roundUsd } from '../core/money.js';
import { fitsBudget, type SpendState } from '../core/budget.js';
import { waitingMayFreeHeadroom } from '../core/budget-wait.js';

/**
 * The job's money as the journal holds it now, its budget (undefined: none), and whether any of its rows is in flight
 * (may still settle or be released).
 */
export interface JobMoney extends SpendState {
  inFlight: boolean;
  budgetUsd: number | undefined;
}

export class BudgetGuard {
  private spend: SpendState;
  private waiters: Array<() => void> = [];
  /** Reservations that may still be released or settled during this run (sent, or about to be). */
  private live = 0;
  /** Reservations taken here whose intent is not in the journal yet (the journal's totals lack them). */
  private unjournaledUsd = 0;
  /** Every reservation that reached the journal, summed: marks which did so while a read was on its way. */
  private journaledUsd = 0;
  /** The journal's word that some row of the job (another runner's too) is in flight. */
  private jobInFlight = false;
  /** Of the reserved figure, what a look at the job's totals may have counted twice (see observe()). */
  private doubtUsd = 0;
  /** The largest ratio the gateway was seen charging this account above the pricing table (1: none). */
  private drift = 1;

  private budget: number | undefined;

  constructor(budgetUsd: number | undefined, initial: SpendState) {
    this.budget = budgetUsd;
    this.spend = { ...initial };
  }

  /** The budget reservations are checked against: the job's, as last read from the journal among runners. */
  get budgetUsd(): number | undefined {
    return this.budget;
  }

  /** The money a reservation is checked against: never too little reserved, at times too much for a beat. */
  current(): SpendState {
    return { ...this.spend };
  }

  /**
   * The money to show and to announce (progress, thresholds): current() less what the last look at the
   * job's totals may have counted twice, so a notification never reports a reservation that is not there.
   */
  committed(): SpendState {
    return {
      reservedUsd: Math.max(0, roundUsd(this.spend.reservedUsd - this.doubtUsd)),
      actualUsd: this.spend.actualUsd,
    };
  }

  /**
   * Reserves `estimateUsd` when it fits; the caller must write the same reservation to the journal (then recorded(), or
   * unsent()).
   */
  tryReserve(estimateUsd: number): boolean {
    if (!fitsBudget(this.budget, this.spend, estimateUsd)) return false;
    this.spend.reservedUsd = roundUsd(this.spend.reservedUsd + estimateUsd);
    this.unjournaledUsd = roundUsd(this.unjournaledUsd + estimateUsd);
    this.live++;
    return true;
  }

  /** The reservation's intent is in the journal. */
  recorded(reservedUsd: number): void {
    this.unjournaledUsd = roundUsd(this.unjournaledUsd - reservedUsd);
    this.journaledUsd = roundUsd(this.journaledUsd + reservedUsd);
  }

  /** The reservation's intent was never written: it goes back. */
  unsent(reservedUsd: number): void {
    this.unjournaledUsd = roundUsd(this.unjournaledUsd - reservedUsd);
    this.release(reservedUsd);
  }

  release(reservedUsd: number): void {
    this.spend.reservedUsd = roundUsd(this.spend.reservedUsd - reservedUsd);
    this.live--;
    this.notify();
  }

  settle(reservedUsd: number, actualUsd: number): void {
    this.spend.reservedUsd = roundUsd(this.spend.reservedUsd - reservedUsd);
    this.spend.actualUsd = roundUsd(this.spend.actualUsd + actualUsd);
    this.live--;
    this.notify();
  }

  /** A settled row's charge raised (a ratio learned after its booking): the headroom shrinks by the difference. */
  corrected(actualUsd: number): void {
    this.spend.actualUsd = roundUsd(this.spend.actualUsd + actualUsd);
  }

  /** The factor later reservations (and text settlements) are scaled by: the gateway charges above the table. */
  get driftRatio(): number {
    return this.drift;
  }

  /** Records a ratio the gateway was seen charging above the table; true when it is a new high. */
  observeDrift(ratio: number): boolean {
    if (!(ratio > this.drift)) return false;
    this.drift = ratio;
    return true;
  }

  /** Journal reservations from an earlier run that this run will settle (tasks still in flight). */
  adopt(count: number): void {
    this.live += count;
  }

  /** The reservation stays (an uncertain item may be charged) but nothing in this run will settle it. */
  hold(): void {
    this.live--;
    this.notify();
  }

  /** Where a read of the journal's totals starts: pass it to observe() with what the read found. */
  mark(): number {
    return this.journaledUsd;
  }

  /**
   * The job's totals as the journal held them at a read begun at `mark`: they become this runner's view,
   * with its own reservations not yet in the journal on top (and those recorded while the read was on its
   * way, which it may have missed: too much reserved for a beat, never too little). The job's budget read
   * with them is the one in force from now on. Waiters look again.
   */
  observe(job: JobMoney, mark: number): void {
    this.doubtUsd = roundUsd(this.journaledUsd - mark);
    const maybeMissed = roundUsd(this.unjournaledUsd + this.doubtUsd);
    this.spend = { reservedUsd: roundUsd(job.reservedUsd + maybeMissed), actualUsd: roundUsd(job.actualUsd) };
    this.budget = job.budgetUsd;
    this.jobInFlight = job.inFlight;
    this.notify();
  }

  /**
   * Whether waiting could ever free headroom: something reserved (by this runner, or another of the job) may still
   * settle or be released. No row waiting for headroom holds a reservation or a slot of the lane (see the submitter's
   * enqueue()), so each reservation counted here belongs to a row that goes ahead without waiting on anyone.
   */
  hasLive(): boolean {
    return waitingMayFreeHeadroom({ ownLive: this.live, jobInFlight: this.jobInFlight });
  }

  /** Whether a submission is waiting for headroom (the budget holds the lane back). */
  hasWaiters(): boolean {
    return this.waiters.length > 0;
  }

  /** Resolves at the next release or settlement (or a look at the job's totals): headroom may have grown. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
