// --rpm at the wire: no `interval` ms ever holds more than `intervalCap` submission requests, counted
// from the moment each request starts to leave on a connected socket, retries included.
import type { Clock } from '../../core/clock.js';

export interface RateWindow {
  intervalCap: number;
  interval: number;
}

/** One request let go by a pacer: tell it when the request is on the wire, and when the exchange is over. */
export interface PacedSend {
  /** The request started to leave on a connected socket: the window counts it from this moment. */
  onWire(): void;
  /** The exchange is over (answered, failed or never sent); a request that never left stops counting. */
  done(): void;
}

export const UNPACED: PacedSend = { onWire: () => undefined, done: () => undefined };

/**
 * --rpm as an even pace rather than a minute's worth in one burst: windows of about a second (or
 * one request per window below 60/min), never more than rpm in any minute.
 */
export function rateWindow(rpm: number): RateWindow {
  const intervalCap = Math.max(1, Math.ceil(rpm / 60));
  return { intervalCap, interval: Math.ceil((60_000 * intervalCap) / rpm) };
}

/**
 * When the next request may leave, given the times of the latest ones (any order): the window that
 * ends with it must not hold more than `intervalCap` requests.
 */
export function earliestSend(recent: readonly number[], window: RateWindow, now: number): number {
  if (recent.length < window.intervalCap) return now;
  const sorted = [...recent].sort((a, b) => a - b);
  return Math.max(now, sorted[sorted.length - window.intervalCap]! + window.interval);
}

interface Slot {
  /** When the request went on the wire; undefined while it is still on its way (an intent, a connection). */
  at: number | undefined;
}

/**
 * A sliding window over the moments requests went on the wire. The submission queue already starts
 * work at this pace; this gate also absorbs what lies between a start and the wire (the intent's
 * commit, an account pause, a cold connection): a request let go but not yet on the wire counts as
 * leaving now, so the gateway never sees more than the cap however late the first of a window
 * leaves. Waiters go in arrival order.
 */
export class SendPacer {
  private slots: Slot[] = [];
  private turn: Promise<unknown> = Promise.resolve();
  private readonly onChange = new Set<() => void>();

  constructor(
    private readonly window: RateWindow,
    private readonly clock: Clock,
  ) {}

  /** Resolves when a request may leave now (and counts it); rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<PacedSend> {
    const mine = this.turn.then(() => this.waitForSlot(signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<PacedSend> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock.now();
      const at = earliestSend(this.times(now), this.window, now);
      if (at <= now) break;
      await this.sleepUntilChange(at - now, signal);
    }
    const slot: Slot = { at: undefined };
    this.slots.push(slot);
    return {
      onWire: () => {
        if (slot.at !== undefined || !this.slots.includes(slot)) return;
        slot.at = this.clock.now();
        this.changed();
      },
      done: () => {
        if (slot.at !== undefined) return;
        this.slots = this.slots.filter((s) => s !== slot);
        this.changed();
      },
    };
  }

  /** The moments that still matter: requests on the wire within the window, and those on their way (as now). */
  private times(now: number): number[] {
    this.slots = this.slots.filter((s) => s.at === undefined || s.at > now - this.window.interval);
    return this.slots.map((s) => s.at ?? now);
  }

  /** Sleeps `ms`, or less if a request reaches the wire or gives up meanwhile (the answer may change). */
  private async sleepUntilChange(ms: number, signal?: AbortSignal): Promise<void> {
    const wake = new AbortController();
    const listener = (): void => wake.abort();
    this.onChange.add(listener);
    try {
      await this.clock.sleep(ms, signal ? AbortSignal.any([signal, wake.signal]) : wake.signal);
    } catch (err) {
      if (!wake.signal.aborted || signal?.aborted) throw err;
    } finally {
      this.onChange.delete(listener);
    }
  }

  private changed(): void {
    for (const listener of [...this.onChange]) listener();
  }
}

/** One send paced by two pacers: each hears when it left and when it is done. */
export function bothPaced(a: PacedSend, b: PacedSend): PacedSend {
  return {
    onWire: () => {
      a.onWire();
      b.onWire();
    },
    done: () => {
      a.done();
      b.done();
    },
  };
}
