// In-memory mirror of the journal's money, updated synchronously so concurrent claims cannot overshoot.
import { roundUsd } from '../core/money.js';
import { fitsBudget, type SpendState } from './budget.js';

export class BudgetGuard {
  private spend: SpendState;
  private waiters: Array<() => void> = [];
  /** Reservations that may still be released or settled during this run (sent, or about to be). */
  private live = 0;
  /** The largest ratio this run saw the gateway charge above the pricing table (1: none). */
  private drift = 1;

  constructor(readonly budgetUsd: number | undefined, initial: SpendState) {
    this.spend = { ...initial };
  }

  current(): SpendState {
    return { ...this.spend };
  }

  /** Reserves `estimateUsd` when it fits; the caller must write the same reservation to the journal. */
  tryReserve(estimateUsd: number): boolean {
    if (!fitsBudget(this.budgetUsd, this.spend, estimateUsd)) return false;
    this.spend.reservedUsd = roundUsd(this.spend.reservedUsd + estimateUsd);
    this.live++;
    return true;
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

  /** Whether waiting could ever free headroom: something reserved may still settle or be released. */
  hasLive(): boolean {
    return this.live > 0;
  }

  /** Whether a submission is waiting for headroom (the budget holds the lane back). */
  hasWaiters(): boolean {
    return this.waiters.length > 0;
  }

  /** Resolves at the next release or settlement: headroom may have grown. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
