// A runner's standing on an SQLite journal: its lock (one runner per file), and the file itself, which
// can be deleted or replaced under a live run.
import type { JournalFileLoss, RunnerMembership, RunnerTakeover, RunnerView, Takeover } from '../store.js';
import type { FileWatch } from './file-watch.js';
import type { RunnerLock } from './lock.js';

export class SqliteMembership implements RunnerMembership {
  constructor(
    private readonly file: string,
    private readonly lock: RunnerLock,
    private readonly watch: FileWatch,
    /** The journal's part: its rows in flight, and the lock's heartbeat written as the journal writes it. */
    private readonly journal: { submittingRows: () => number; beat: () => boolean },
  ) {}

  async acquire(): Promise<RunnerTakeover | undefined> {
    return this.lock.acquire(this.file);
  }

  async heartbeat(): Promise<boolean> {
    return this.journal.beat();
  }

  async release(): Promise<void> {
    this.lock.release();
  }

  forget(): void {
    this.lock.forget();
  }

  /** One stat of the journal's path: is it still the file this process opened? */
  lost(): JournalFileLoss | undefined {
    return this.watch.lost();
  }

  /** The lock keeps every other runner out: there is never anyone to take over from mid-run. */
  async sweep(): Promise<Takeover> {
    return { madeUncertain: [], adopted: [], released: 0 };
  }

  async othersWork(): Promise<{ held: number; claimable: number }> {
    return { held: 0, claimable: 0 };
  }

  /** The lock is checked inside every write transaction: nothing is sent on a lock lost before its intent. */
  confirmedAt(): number {
    return performance.now();
  }

  async acknowledgeCancel(): Promise<void> {
    this.lock.acknowledgeCancel();
  }

  async runners(): Promise<RunnerView[]> {
    const holder = this.lock.holderLiveness();
    if (!holder) return [];
    const { pid, host, heartbeatAt, startedAt, cancelSeenAt, alive, heartbeatAgeMs, basis } = holder;
    return [
      {
        runnerId: `${host}:${pid}`,
        pid,
        host,
        startedAt,
        heartbeatAt,
        rows: this.journal.submittingRows(),
        liveness: { alive, heartbeatAgeMs, basis },
        cancelSeenAt,
      },
    ];
  }
}
