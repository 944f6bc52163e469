// Group commit: transitions requested close together share one SQLite transaction (one fsync). A
// commit follows the previous one by at least `windowMs`, so under load each fsync carries many
// changes; when idle, a change commits on the next turn of the event loop. An urgent change (an
// intent, which a request is waiting on) does not wait out the window: it commits on the next turn,
// with everything queued by then. A change whose loss would cost nothing but repeated work (a stored
// file's record: the file is durable, a lost record means one more download) may defer its fsync: a
// batch made only of such changes commits without one, and Journal.syncDeferred() (or the next synced
// commit) makes it durable.
import type { Change, Journal } from './sqlite/journal.js';
import type { Item } from './item.js';

interface Waiting {
  change: Change;
  base: Item | undefined;
  bare?: boolean;
  deferSync?: boolean;
  resolve: (item: Item) => void;
  reject: (err: unknown) => void;
}

/**
 * A change made from the caller's copy of the item expects the row still in that copy's state: if an
 * operator moved it meanwhile, the change fails as stale (someone else decided) instead of as a bug.
 */
function guarded(waiting: Waiting): Change {
  if (waiting.change.expect !== undefined || !waiting.base) return waiting.change;
  return { ...waiting.change, expect: waiting.base.state };
}

export class CommitQueue {
  private queue: Waiting[] = [];
  private scheduled: false | 'window' | 'soon' = false;
  private timer: NodeJS.Timeout | undefined;
  private commits = 0;
  private lastFlushAt = 0;

  constructor(private readonly journal: Journal, private readonly windowMs = 2) {}

  private schedule(urgent = false): void {
    if (this.scheduled === 'soon' || (this.scheduled === 'window' && !urgent)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const wait = urgent ? 0 : this.lastFlushAt + this.windowMs - performance.now();
    if (wait > 0) {
      this.scheduled = 'window';
      this.timer = setTimeout(() => this.flush(), wait);
    } else {
      this.scheduled = 'soon';
      setImmediate(() => this.flush());
    }
  }

  /**
   * Resolves once the change is durable (with `deferSync`: committed, its fsync left to
   * Journal.syncDeferred()); rejects when its transition was illegal or stale. With `base` (the
   * caller's copy of the item) the result is that copy with the change applied, saving a re-read.
   */
  write(change: Change, base?: Item, options: { urgent?: boolean; deferSync?: boolean } = {}): Promise<Item> {
    return new Promise<Item>((resolve, reject) => {
      this.queue.push({ change, base, resolve, reject, ...(options.deferSync ? { deferSync: true } : {}) });
      this.schedule(options.urgent);
    });
  }

  /** As write(), for callers that need no item back (no re-read). */
  commit(change: Change): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ change, base: undefined, bare: true, resolve: () => resolve(), reject });
      this.schedule();
    });
  }

  /** Commits everything queued now. A failing change is retried alone so one bug cannot sink its batch-mates. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.scheduled = false;
    this.lastFlushAt = performance.now();
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      const deferSync = batch.every((w) => w.deferSync === true);
      const moves = this.journal.applyTransitions(batch.map(guarded), { deferSync });
      this.commits++;
      batch.forEach((w, i) => w.resolve(this.result(w, moves[i]!)));
    } catch {
      for (const waiting of batch) {
        try {
          const [move] = this.journal.applyTransitions([guarded(waiting)], { deferSync: waiting.deferSync === true });
          this.commits++;
          waiting.resolve(this.result(waiting, move!));
        } catch (err) {
          waiting.reject(err);
        }
      }
    }
  }

  private result(waiting: Waiting, move: { to: Item['state']; at: number }): Item {
    if (waiting.bare) return undefined as unknown as Item;
    if (!waiting.base) return this.journal.get(waiting.change.id)!;
    const patch = Object.fromEntries(Object.entries(waiting.change.patch ?? {}).filter(([, v]) => v !== undefined));
    return { ...waiting.base, ...patch, state: move.to, updatedAt: move.at };
  }

  get commitCount(): number {
    return this.commits;
  }
}
