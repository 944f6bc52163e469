// Group commit: transitions requested in the same turn of the event loop share one SQLite transaction.
import type { Change, Journal } from './journal.js';
import type { Item } from './item.js';

interface Waiting { change: Change; resolve: (item: Item) => void; reject: (err: unknown) => void }

export class CommitQueue {
  private queue: Waiting[] = [];
  private scheduled = false;
  private commits = 0;

  constructor(private readonly journal: Journal) {}

  /** Resolves once the change is durable; rejects when its transition was illegal or stale. */
  write(change: Change): Promise<Item> {
    return new Promise<Item>((resolve, reject) => {
      this.queue.push({ change, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued now. A failing change is retried alone so one bug cannot sink its batch-mates. */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      const items = this.journal.apply(batch.map((w) => w.change));
      this.commits++;
      batch.forEach((w, i) => w.resolve(items[i]!));
    } catch {
      for (const waiting of batch) {
        try {
          waiting.resolve(this.journal.apply([waiting.change])[0]!);
          this.commits++;
        } catch (err) {
          waiting.reject(err);
        }
      }
    }
  }

  get commitCount(): number {
    return this.commits;
  }
}
