// How long the run's submissions take, from the moment a request may leave to its answer: what a shared journal's
// commit queue sizes its wait by (../../core/commit-linger.ts).
import { commitLingerMs, typicalExchangeAfter } from '../../core/commit-linger.js';

export class ExchangeTimes {
  private typicalMs: number | undefined;

  record(exchangeMs: number): void {
    if (exchangeMs >= 0) this.typicalMs = typicalExchangeAfter(this.typicalMs, exchangeMs);
  }

  /** The wait a commit batch gathers companions for (ms). */
  lingerMs(): number {
    return commitLingerMs(this.typicalMs);
  }
}
