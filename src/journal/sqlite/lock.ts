// One runner per journal: a lock row naming the live runner, taken over only when that runner is gone.
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { pidAlive, processStartOf } from '../process-identity.js';
import { judgeRunner, type RunnerLiveness, type RunnerRecord } from '../runner-liveness.js';
import { staleAfterMs } from '../runner-standing.js';
import { JournalBusyError } from '../errors.js';

interface LockRow {
  pid: number;
  host: string;
  token: string;
  started_at: number;
  heartbeat_at: number;
  process_start?: string | null;
  cancel_seen_at?: number | null;
}

export interface LockTakeover {
  pid: number;
  host: string;
  heartbeatAt: number;
}

export interface LockHolder {
  pid: number;
  host: string;
  heartbeatAt: number;
}

function record(row: LockRow): RunnerRecord {
  return { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at, processStart: row.process_start ?? null };
}

export class RunnerLock {
  private token: string | undefined;
  private ownStmt: Database.Statement | undefined;

  /** @internal the driver's handle: left out of the published types (better-sqlite3's are a dev dependency). */
  constructor(
    private readonly db: Database.Database,
    private readonly clock: { now(): number },
  ) {}

  private judge(row: LockRow): RunnerLiveness {
    return judgeRunner(record(row), {
      now: this.clock.now(),
      thisHost: hostname(),
      staleAfterMs: staleAfterMs(),
      pidAlive,
    });
  }

  /**
   * Takes the lock; returns the previous holder when its runner was gone (killed, crashed).
   * On this host a holder whose process is alive is never taken over, however old its heartbeat.
   */
  acquire(file: string): LockTakeover | undefined {
    const token = randomUUID();
    const host = hostname();
    const now = this.clock.now();
    // A live holder is refused at once, without the write lock (a stopped holder may keep it held).
    const seen = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
    if (seen && this.judge(seen).alive) throw new JournalBusyError(file, seen.pid, seen.host);
    const take = this.db.transaction((): LockTakeover | undefined => {
      const row = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
      let takeover: LockTakeover | undefined;
      if (row) {
        if (this.judge(row).alive) throw new JournalBusyError(file, row.pid, row.host);
        takeover = { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at };
      }
      this.db
        .prepare(
          `INSERT INTO runner_lock (id, pid, host, token, started_at, heartbeat_at, process_start) VALUES (1, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, token = excluded.token,
        started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, process_start = excluded.process_start`,
        )
        .run(process.pid, host, token, now, now, processStartOf(process.pid));
      return takeover;
    });
    let result: LockTakeover | undefined;
    try {
      result = take.immediate();
    } catch (err) {
      // The write lock stayed held past the busy timeout: a runner stopped (or stuck) in mid-commit.
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
      const holder = this.holder();
      throw new JournalBusyError(file, holder?.pid ?? 0, holder?.host ?? 'an unknown host');
    }
    this.token = token;
    return result;
  }

  /** Refreshes the heartbeat; false when the lock is no longer ours (another runner took it, or it was removed). */
  heartbeat(): boolean {
    if (!this.token) return true;
    return (
      this.db
        .prepare('UPDATE runner_lock SET heartbeat_at = ? WHERE id = 1 AND token = ?')
        .run(this.clock.now(), this.token).changes === 1
    );
  }

  /** Notes on the lock row that this runner saw the job's cancellation (`gbatch cancel` waits for it). */
  acknowledgeCancel(): void {
    if (!this.token) return;
    this.db
      .prepare('UPDATE runner_lock SET cancel_seen_at = ? WHERE id = 1 AND token = ?')
      .run(this.clock.now(), this.token);
  }

  release(): void {
    if (!this.token || !this.db.open) return;
    this.db.prepare('DELETE FROM runner_lock WHERE id = 1 AND token = ?').run(this.token);
    this.token = undefined;
  }

  /** True when this process took the lock and the row no longer carries its token (checked inside each write). */
  lost(): boolean {
    if (!this.token) return false;
    this.ownStmt ??= this.db.prepare('SELECT 1 FROM runner_lock WHERE id = 1 AND token = ?');
    return this.ownStmt.get(this.token) === undefined;
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
  holderLiveness(): (LockHolder & RunnerLiveness & { startedAt: number; cancelSeenAt: number | null }) | undefined {
    const row = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
    return row
      ? {
          pid: row.pid,
          host: row.host,
          heartbeatAt: row.heartbeat_at,
          startedAt: row.started_at,
          cancelSeenAt: row.cancel_seen_at ?? null,
          ...this.judge(row),
        }
      : undefined;
  }
}
