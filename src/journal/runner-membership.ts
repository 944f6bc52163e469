// A runner's standing among the runners of its job: a lock on one file (SQLite), or a lease among many
// (PostgreSQL), and the sweep that takes over from runners that are gone.
import type { Item } from './item.js';
import type { RunnerLiveness } from './runner-liveness.js';

/**
 * What a sweep for runners that are gone found: their mid-request rows, now uncertain, and the rows this runner took
 * over.
 */
export interface Takeover {
  /** Rows left `submitting` (their request may have reached the gateway): now `uncertain`, as they were before. */
  madeUncertain: Item[];
  /** Tasks in flight and answers to download that this runner now holds (poll and download them). */
  adopted: Item[];
  /** Pending rows the gone runners had claimed, free again for any runner. */
  released: number;
  /** The job's runners not swept, this one included, as the sweep saw them (a journal of one runner: none). */
  runners?: number;
}

/** A runner of the job as `status` shows it. */
export interface RunnerView {
  runnerId: string;
  pid: number;
  host: string;
  startedAt: number;
  heartbeatAt: number;
  /** Rows it holds (submitting, or tasks it polls and downloads). */
  rows: number;
  liveness: RunnerLiveness;
  /** When it acknowledged the job's cancellation (it sends nothing more from then on); null: not yet. */
  cancelSeenAt?: number | null;
}

export interface RunnerTakeover {
  pid: number;
  host: string;
  heartbeatAt: number;
}

/** A journal lost under a live run: its file deleted (or moved away), or replaced by another file. */
export type JournalFileLoss = 'deleted' | 'replaced';

/** This process's standing as a runner of the job: a lock (SQLite) or a lease among many (PostgreSQL). */
export interface RunnerMembership {
  /** Joins (or takes the job over from a runner that is gone); throws JournalBusyError when it may not. */
  acquire(): Promise<RunnerTakeover | undefined>;
  /** Refreshes the heartbeat; false when this runner lost its standing (its lease expired, its lock was taken). */
  heartbeat(): Promise<boolean>;
  release(): Promise<void>;
  /** Stops this process from releasing what it lost: it belongs to someone else now. */
  forget(): void;
  /**
   * Whether the journal itself was lost under this runner: a file deleted or replaced at its path (one
   * stat). A database is not lost that way (its loss is a lease lost: heartbeat() says it): never.
   */
  lost(): JournalFileLoss | undefined;
  /** The job's runners, live and dead (status). */
  runners(): Promise<RunnerView[]>;
  /**
   * Takes over from runners whose lease expired (and rows no runner holds): their `submitting` rows
   * become `uncertain`, never resent blindly; their tasks in flight and answers to download become this
   * runner's. One journal with one runner has nothing to sweep.
   */
  sweep(): Promise<Takeover>;
  /**
   * The work of the job that is not this runner's: open rows other runners hold (they will finish them,
   * or stop and be swept), and pending rows no live runner has claimed (this one may send them).
   */
  othersWork(): Promise<{ held: number; claimable: number }>;
  /**
   * When this runner's standing was last confirmed, on the local clock (performance.now ms); it may send only while
   * fresh.
   */
  confirmedAt(): number;
  /** Records that this runner saw the job's cancellation and sends nothing more (`gbatch cancel` waits for it). */
  acknowledgeCancel(): Promise<void>;
}
