// Coordination and notices for a journal that one runner holds at a time (an SQLite file): there is no
// other runner to agree with, so this process's own memory is the whole truth. The pipeline uses them
// only where `capabilities.sharedRunners` (it paces, pauses and writes its results file on its own
// otherwise); they are here so that the interface has no optional members, and they mean what the
// shared ones mean for a job of one runner.
import type { ItemState } from '../core/states.js';
import type { Spend } from './change.js';
import type { JobNotices } from './job-notices.js';
import type { SeenDrift } from '../core/seen-drift.js';
import type { Coordination, JobMoney } from './store.js';

const IN_FLIGHT: readonly ItemState[] = ['submitting', 'submitted', 'running'];

interface OneRunnerJournal {
  now(): number;
  spend(): Promise<Spend>;
  counts(): Promise<Record<ItemState, number>>;
  drifts(): Promise<SeenDrift[]>;
  getJob(): Promise<{ budgetUsd?: number | undefined } | undefined>;
}

export class OneRunnerCoordination implements Coordination {
  private stopped: 'balance' | undefined;
  private readonly nextSendAt = new Map<string, number>();
  private readonly pausedUntil = new Map<string, number>();
  private readonly handovers = new Map<string, string>();
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly journal: OneRunnerJournal) {}

  async stopSubmissions(reason: 'balance'): Promise<void> {
    this.stopped ??= reason;
  }

  async submissionsStopped(): Promise<'balance' | undefined> {
    return this.stopped;
  }

  async stoppedAtBalance(): Promise<boolean> {
    return this.stopped === 'balance';
  }

  async takeSendSlot(account: string, intervalMs: number): Promise<number> {
    const now = this.journal.now();
    const at = Math.max(now, this.nextSendAt.get(account) ?? now);
    this.nextSendAt.set(account, at + intervalMs);
    return at - now;
  }

  async pauseAccount(account: string, ms: number): Promise<void> {
    const until = this.journal.now() + ms;
    this.pausedUntil.set(account, Math.max(until, this.pausedUntil.get(account) ?? 0));
  }

  async accountPause(account: string): Promise<number> {
    return Math.max(0, (this.pausedUntil.get(account) ?? 0) - this.journal.now());
  }

  /** Work of one name runs one at a time in this process (no other process holds the job). */
  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const before = this.running.get(name) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(work);
    this.running.set(name, mine);
    try {
      return await mine;
    } finally {
      if (this.running.get(name) === mine) this.running.delete(name);
    }
  }

  async handover(key: string): Promise<string | undefined> {
    return this.handovers.get(key);
  }

  async recordHandover(key: string, text: string): Promise<void> {
    this.handovers.set(key, text);
  }

  async jobMoney(): Promise<JobMoney> {
    const counts = await this.journal.counts();
    return {
      ...(await this.journal.spend()),
      inFlight: IN_FLIGHT.some((state) => counts[state] > 0),
      budgetUsd: (await this.journal.getJob())?.budgetUsd,
      drifts: await this.journal.drifts(),
    };
  }
}

/** The one runner sends every notice once, and is always the job's last runner to end. */
export class OneRunnerNotices implements JobNotices {
  private readonly claimed = new Set<string>();

  async begin(): Promise<void> {
    this.claimed.clear();
  }

  async claim(notice: string): Promise<boolean> {
    if (this.claimed.has(notice)) return false;
    this.claimed.add(notice);
    return true;
  }

  async end(): Promise<boolean> {
    return true;
  }
}
