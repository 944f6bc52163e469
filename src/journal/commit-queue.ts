// Group commit: transitions requested close together share one SQLite transaction (one fsync). A
// commit follows the previous one by at least `windowMs`, so under load each fsync carries many
// changes; when idle, a change commits on the next turn of the event loop. An urgent change (an
// intent, which a request is waiting on) does not wait out the window: it commits on the next turn,
// with everything queued by then. A change whose loss would cost nothing but repeated work (a stored
// file's record: the file is durable, a lost record means one more download) may be `relaxed`: a
// batch made only of such changes commits without waiting on the disk, and the journal's flush() (or
// the next synced commit) makes it durable. A queue given a linger (a shared journal's: see
// ../core/commit-linger.ts) holds every batch, intents included, that long from its first change, so slots that
// free close together share one commit.
import { outageBoundMs, outageRetryDelay } from '../core/outage.js';
import type { Change } from './change.js';
import type { Item } from './item.js';
import { journalStorageFailure } from './sqlite/storage-failure.js';
import type { Durability, JournalRun } from './store.js';

interface Waiting {
  change: Change;
  base: Item | undefined;
  bare?: boolean;
  durability?: Durability;
  urgent?: boolean;
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
  private queueHasUrgent = false;
  /** performance.now() when the queued batch's first change came: a batch lingers from it. */
  private queueStartedAt = 0;
  /** When the scheduled flush is due (performance.now() time); undefined: none scheduled. */
  private dueAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private commits = 0;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  /** The batch being committed: the next waits for it (an adapter's commit may take a round trip). */
  private committing: Promise<void> | undefined;
  /** The storage failure answers are being held through (commitThroughOutage): an intent fails at once meanwhile. */
  private outage: unknown;

  constructor(
    private readonly journal: JournalRun,
    private readonly windowMs = 2,
    /** Told of each transaction committed: how long it took (seconds) and how many changes it carried. */
    private readonly onCommit?: (seconds: number, changes: number) => void,
    /** How long a batch waits from its first change for others to join it (ms; asked each time a change is queued). */
    private readonly lingerMs: () => number = () => 0,
  ) {}

  private enqueue(waiting: Waiting): void {
    if (this.queue.length === 0) this.queueStartedAt = performance.now();
    this.queue.push(waiting);
    if (waiting.urgent) this.queueHasUrgent = true;
    this.schedule();
  }

  /** An urgent batch is due when its linger ends; any other waits out the window since the last commit too. */
  private batchDueAt(): number {
    const lingered = this.queueStartedAt + this.lingerMs();
    return this.queueHasUrgent ? lingered : Math.max(lingered, this.lastFlushAt + this.windowMs);
  }

  private schedule(): void {
    if (this.committing || this.queue.length === 0) return; // the commit in progress schedules the next batch
    const due = this.batchDueAt();
    if (this.dueAt !== undefined && this.dueAt <= due) return;
    this.cancelScheduled();
    this.dueAt = due;
    const wait = due - performance.now();
    if (wait > 0) this.timer = setTimeout(() => void this.flush(), wait);
    else this.immediate = setImmediate(() => void this.flush());
  }

  private cancelScheduled(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    this.dueAt = undefined;
  }

  /**
   * Resolves once the change is durable (`relaxed`: committed, made durable by the journal's
   * flush()); rejects when its transition was illegal or stale. With `base` (the
   * caller's copy of the item) the result is that copy with the change applied, saving a re-read.
   */
  write(change: Change, base?: Item, options: { urgent?: boolean; durability?: Durability } = {}): Promise<Item> {
    return new Promise<Item>((resolve, reject) => {
      if (options.urgent && this.outage !== undefined) return reject(this.outage);
      this.enqueue({
        change,
        base,
        resolve,
        reject,
        ...(options.durability ? { durability: options.durability } : {}),
        ...(options.urgent ? { urgent: true } : {}),
      });
    });
  }

  /** As write(), for callers that need no item back (no re-read). */
  commit(change: Change): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.enqueue({ change, base: undefined, bare: true, resolve: () => resolve(), reject });
    });
  }

  /**
   * Commits everything queued now (after the commit in progress). A failing batch is retried change by change, or
   * through a full disk (commitThroughOutage).
   */
  flush(): Promise<void> {
    // A flush asked for directly takes the place of the one scheduled: that one must not fire later and
    // commit, ahead of its window, what was queued after.
    this.cancelScheduled();
    if (this.committing) return this.committing;
    const batch = this.queue;
    this.queue = [];
    this.queueHasUrgent = false;
    if (batch.length === 0) return Promise.resolve();
    this.lastFlushAt = performance.now();
    const done = this.commitBatch(batch).finally(() => {
      this.committing = undefined;
      this.schedule();
    });
    this.committing = done;
    return done;
  }

  private async commitBatch(batch: Waiting[]): Promise<void> {
    try {
      await this.commitAll(batch);
    } catch (err) {
      if (journalStorageFailure(err)) return this.commitThroughOutage(batch, err);
      await this.commitEach(batch);
    }
  }

  private async commitAll(batch: Waiting[]): Promise<void> {
    const durability = batch.every((w) => w.durability === 'relaxed') ? 'relaxed' : 'sync';
    const started = performance.now();
    const moves = await this.journal.applyTransitions(batch.map(guarded), { durability });
    this.commits++;
    this.onCommit?.((performance.now() - started) / 1000, batch.length);
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(await this.result(batch[i]!, moves[i]!));
  }

  /**
   * The journal's disk is full (or failing). An intent fails at once: its request must not leave. An
   * answer (a task id, a body, a task's end) is held and tried again, for at most the outage bound: space
   * freed meanwhile keeps it, where failing now would leave the row to become uncertain.
   */
  private async commitThroughOutage(batch: Waiting[], first: unknown): Promise<void> {
    for (const waiting of batch) if (waiting.urgent) waiting.reject(first);
    const answers = batch.filter((w) => !w.urgent);
    const bound = outageBoundMs();
    const started = performance.now();
    this.outage = first;
    try {
      for (let attempt = 1; answers.length > 0; attempt++) {
        const wait = outageRetryDelay(attempt, performance.now() - started, bound, Math.random);
        if (wait === undefined) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
        try {
          return await this.commitAll(answers);
        } catch (err) {
          if (!journalStorageFailure(err)) break;
        }
      }
      await this.commitEach(answers);
    } finally {
      this.outage = undefined;
    }
  }

  /** A failing change is tried alone so one bug cannot sink its batch-mates. */
  private async commitEach(batch: Waiting[]): Promise<void> {
    for (const waiting of batch) {
      try {
        const started = performance.now();
        const [move] = await this.journal.applyTransitions([guarded(waiting)], {
          durability: waiting.durability ?? 'sync',
        });
        this.commits++;
        this.onCommit?.((performance.now() - started) / 1000, 1);
        waiting.resolve(await this.result(waiting, move!));
      } catch (err) {
        waiting.reject(err);
      }
    }
  }

  private async result(waiting: Waiting, move: { to: Item['state']; at: number }): Promise<Item> {
    if (waiting.bare) return undefined as unknown as Item;
    if (!waiting.base) return (await this.journal.get(waiting.change.id))!;
    const patch = Object.fromEntries(Object.entries(waiting.change.patch ?? {}).filter(([, v]) => v !== undefined));
    return { ...waiting.base, ...patch, state: move.to, updatedAt: move.at };
  }

  get commitCount(): number {
    return this.commits;
  }
}
