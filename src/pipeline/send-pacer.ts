// --rpm at the wire: no `interval` ms ever holds more than `intervalCap` submission requests, counted
// when each request is let go, retries included.
import type { Clock } from '../core/clock.js';

export interface RateWindow {
  intervalCap: number;
  interval: number;
}

/**
 * --rpm as an even pace rather than a minute's worth in one burst: windows of about a second (or
 * one request per window below 60/min), never more than rpm in any minute.
 */
export function rateWindow(rpm: number): RateWindow {
  const intervalCap = Math.max(1, Math.ceil(rpm / 60));
  return { intervalCap, interval: Math.ceil((60_000 * intervalCap) / rpm) };
}

/**
 * When the next request may leave, given the times of the latest ones (oldest first): the window
 * that ends with it must not hold more than `intervalCap` requests.
 */
export function earliestSend(recent: readonly number[], window: RateWindow, now: number): number {
  if (recent.length < window.intervalCap) return now;
  return Math.max(now, recent[recent.length - window.intervalCap]! + window.interval);
}

/**
 * A sliding window over the moments requests were let go. The submission queue already starts work at
 * this pace; this gate also absorbs what lies between a start and its request (the intent's commit, a
 * cold connection), so one slow window cannot bunch up against the next. Waiters go in arrival order.
 */
export class SendPacer {
  private readonly recent: number[] = [];
  private turn: Promise<void> = Promise.resolve();

  constructor(private readonly window: RateWindow, private readonly clock: Clock) {}

  /** Resolves when a request may leave now (and counts it); rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    const mine = this.turn.then(() => this.waitForSlot(signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock.now();
      const at = earliestSend(this.recent, this.window, now);
      if (at <= now) break;
      await this.clock.sleep(at - now, signal);
    }
    this.recent.push(this.clock.now());
    if (this.recent.length > this.window.intervalCap) this.recent.shift();
  }
}
