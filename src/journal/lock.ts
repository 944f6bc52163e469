// One runner per journal: a lock row naming the live runner, taken over only when that runner is gone.
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { pidAlive, processStartOf } from './process-identity.js';
import { judgeRunner, type RunnerLiveness, type RunnerRecord } from './runner-liveness.js';

/** A live runner refreshes its heartbeat this often. */
export const HEARTBEAT_MS = 2_000;
/** A lock of another host whose heartbeat is this old is abandoned (on this host, the pid decides). */
export const STALE_AFTER_MS = 30_000;

/** The stale threshold; GBATCH_LOCK_STALE_MS overrides it (a test knob: tests cannot wait 30 s). */
export function staleAfterMs(env: NodeJS.ProcessEnv = process.env): number {
  const knob = Number(env.GBATCH_LOCK_STALE_MS);
  return env.GBATCH_LOCK_STALE_MS && Number.isFinite(knob) && knob > 0 ? knob : STALE_AFTER_MS;
}

export class JournalBusyError extends Error {
  readonly code = 'GBATCH_JOURNAL_BUSY';
  constructor(file: string, readonly pid: number, readonly host: string) {
    super(`${file}: another gbatch run (pid ${pid} on ${host}) is using this journal; wait for it to finish or stop it`);
    this.name = 'JournalBusyError';
  }
}

interface LockRow { pid: number; host: string; token: string; started_at: number; heartbeat_at: number; process_start?: string | null }

export interface LockTakeover { pid: number; host: string; heartbeatAt: number }

export interface LockHolder { pid: number; host: string; heartbeatAt: number }

function record(row: LockRow): RunnerRecord {
  return { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at, processStart: row.process_start ?? null };
}

export class RunnerLock {
  private token: string | undefined;

  constructor(private readonly db: Database.Database, private readonly clock: { now(): number }) {}

  private judge(row: LockRow): RunnerLiveness {
    return judgeRunner(record(row), { now: this.clock.now(), thisHost: hostname(), staleAfterMs: staleAfterMs(), pidAlive });
  }

  /**
   * Takes the lock; returns the previous holder when its runner was gone (killed, crashed).
   * On this host a holder whose process is alive is never taken over, however old its heartbeat.
   */
  acquire(file: string): LockTakeover | undefined {
    const token = randomUUID();
    const host = hostname();
    const now = this.clock.now();
    const result = this.db.transaction((): LockTakeover | undefined => {
      const row = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
      let takeover: LockTakeover | undefined;
      if (row) {
        if (this.judge(row).alive) throw new JournalBusyError(file, row.pid, row.host);
        takeover = { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at };
      }
      this.db.prepare(`INSERT INTO runner_lock (id, pid, host, token, started_at, heartbeat_at, process_start) VALUES (1, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, token = excluded.token,
        started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, process_start = excluded.process_start`)
        .run(process.pid, host, token, now, now, processStartOf(process.pid));
      return takeover;
    }).immediate();
    this.token = token;
    return result;
  }

  /** Refreshes the heartbeat; false when the lock is no longer ours (another runner took it, or it was removed). */
  heartbeat(): boolean {
    if (!this.token) return true;
    return this.db.prepare('UPDATE runner_lock SET heartbeat_at = ? WHERE id = 1 AND token = ?').run(this.clock.now(), this.token).changes === 1;
  }

  release(): void {
    if (!this.token || !this.db.open) return;
    this.db.prepare('DELETE FROM runner_lock WHERE id = 1 AND token = ?').run(this.token);
    this.token = undefined;
  }

  /** Stops this run from releasing a lock it lost: the row now belongs to someone else, or to no one. */
  forget(): void {
    this.token = undefined;
  }

  holder(): LockHolder | undefined {
    const row = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
    return row ? { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at } : undefined;
  }

  /** The holder with the shared liveness verdict (status shows it). */
  holderLiveness(): (LockHolder & RunnerLiveness) | undefined {
    const row = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
    return row ? { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at, ...this.judge(row) } : undefined;
  }
}
