// Rate limits are per account (spec 8): a 429 on any request holds back every request of the client.

import type { Clock } from '../core/clock.js';

export class AccountPause {
  private until = 0;

  constructor(private readonly clock: Clock) {}

  /** Extends the pause to at least `ms` from now; a shorter new wait never shortens a longer one. */
  pauseFor(ms: number): void {
    this.until = Math.max(this.until, this.clock.now() + Math.max(0, ms));
  }

  /** Clock ms until which requests are held back, 0 when they may leave now. */
  pausedUntil(): number {
    return this.until > this.clock.now() ? this.until : 0;
  }

  /** Waits (on the clock) until no pause is in force; loops because a 429 meanwhile may extend it. */
  async waitUntilOpen(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const remaining = this.until - this.clock.now();
      if (remaining <= 0) return;
      await this.clock.sleep(remaining, signal);
    }
  }
}
