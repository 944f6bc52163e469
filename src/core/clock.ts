// Time as a parameter: everything that waits does so through a Clock, so tests drive time by hand.

export interface Clock {
  /** Milliseconds since the epoch (or since the ManualClock's start). */
  now(): number;
  /**
   * Resolves after `ms`, however long (Infinity: never); rejects with the signal's reason when the signal aborts first.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest delay one Node timer takes (2^31-1 ms, about 24.8 days): a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      // A wait longer than one timer takes is a chain of timers, each at most MAX_TIMER_MS.
      let left = ms > 0 ? ms : 0;
      let timer: NodeJS.Timeout;
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      const wait = (): void => {
        const step = Math.min(left, MAX_TIMER_MS);
        left -= step;
        timer = setTimeout(() => {
          if (left > 0) return wait();
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, step);
      };
      wait();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

interface Sleeper {
  wakeAt: number;
  order: number;
  resolve: () => void;
}

/** Lets pending promise continuations (and the sleeps they register) run before time moves on. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that only moves when told to. `advance` wakes sleepers one at a time in wake order, letting
 * each continuation run (and register new sleeps) before moving on, as real time would.
 */
export class ManualClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];
  private sequence = 0;
  private sleeperWaiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = {
        wakeAt: this.current + ms,
        order: this.sequence++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
      this.notifySleeperWaiters();
    });
  }

  /** Moves time forward by `ms`, waking every sleeper whose time came, earliest first. */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    await settle();
    for (;;) {
      const next = this.earliestDue(target);
      if (!next) break;
      this.sleepers = this.sleepers.filter((s) => s !== next);
      this.current = Math.max(this.current, next.wakeAt);
      next.resolve();
      await settle();
    }
    this.current = target;
  }

  /**
   * Moves time forward by `ms` at once, for code that reads `now()` and does not sleep: every sleeper due
   * is woken, and their continuations run after the caller's synchronous code.
   */
  tick(ms: number): void {
    this.current += Math.max(0, ms);
    const due = this.sleepers
      .filter((s) => s.wakeAt <= this.current)
      .sort((a, b) => a.wakeAt - b.wakeAt || a.order - b.order);
    this.sleepers = this.sleepers.filter((s) => s.wakeAt > this.current);
    for (const sleeper of due) sleeper.resolve();
  }

  /** When the earliest pending sleep ends; undefined when nothing sleeps. */
  nextWakeAt(): number | undefined {
    return this.sleepers.reduce<number | undefined>(
      (min, s) => (min === undefined || s.wakeAt < min ? s.wakeAt : min),
      undefined,
    );
  }

  pendingSleepers(): number {
    return this.sleepers.length;
  }

  /** Resolves once at least `count` sleeps are pending: lets a test wait for "the client is now waiting". */
  waitForSleepers(count = 1): Promise<void> {
    if (this.sleepers.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.sleeperWaiters.push({ count, resolve }));
  }

  private earliestDue(target: number): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.sleepers) {
      if (s.wakeAt > target) continue;
      if (!best || s.wakeAt < best.wakeAt || (s.wakeAt === best.wakeAt && s.order < best.order)) best = s;
    }
    return best;
  }

  private notifySleeperWaiters(): void {
    const ready = this.sleeperWaiters.filter((w) => this.sleepers.length >= w.count);
    this.sleeperWaiters = this.sleeperWaiters.filter((w) => this.sleepers.length < w.count);
    for (const w of ready) w.resolve();
  }
}
