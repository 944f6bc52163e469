// One runner per journal: a lock row naming the live runner, taken over only when that runner is gone.
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** A live runner refreshes its heartbeat this often; a lock older than STALE_AFTER_MS is abandoned. */
export const HEARTBEAT_MS = 2_000;
export const STALE_AFTER_MS = 30_000;

export class JournalBusyError extends Error {
  readonly code = 'GBATCH_JOURNAL_BUSY';
  constructor(file: string, readonly pid: number, readonly host: string) {
    super(`${file}: another gbatch run (pid ${pid} on ${host}) is using this journal; wait for it to finish or stop it`);
    this.name = 'JournalBusyError';
  }
}

interface LockRow { pid: number; host: string; token: string; started_at: number; heartbeat_at: number }

export interface LockTakeover { pid: number; host: string; heartbeatAt: number }

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class RunnerLock {
  private token: string | undefined;

  constructor(private readonly db: Database.Database, private readonly clock: { now(): number }) {}

  /**
   * Takes the lock; returns the previous holder when its runner was gone (killed, crashed).
   * A holder counts as live when its heartbeat is fresh and, on this host, its pid still exists.
   */
  acquire(file: string): LockTakeover | undefined {
    const token = randomUUID();
    const host = hostname();
    const now = this.clock.now();
    const result = this.db.transaction((): LockTakeover | undefined => {
      const row = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
      let takeover: LockTakeover | undefined;
      if (row) {
        const fresh = now - row.heartbeat_at < STALE_AFTER_MS;
        const alive = row.host === host ? processAlive(row.pid) : true;
        if (fresh && alive) throw new JournalBusyError(file, row.pid, row.host);
        takeover = { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at };
      }
      this.db.prepare(`INSERT INTO runner_lock (id, pid, host, token, started_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, token = excluded.token,
        started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`).run(process.pid, host, token, now, now);
      return takeover;
    }).immediate();
    this.token = token;
    return result;
  }

  heartbeat(): void {
    if (!this.token) return;
    this.db.prepare('UPDATE runner_lock SET heartbeat_at = ? WHERE id = 1 AND token = ?').run(this.clock.now(), this.token);
  }

  release(): void {
    if (!this.token || !this.db.open) return;
    this.db.prepare('DELETE FROM runner_lock WHERE id = 1 AND token = ?').run(this.token);
    this.token = undefined;
  }

  holder(): { pid: number; host: string; heartbeatAt: number } | undefined {
    const row = this.db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as LockRow | undefined;
    return row ? { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at } : undefined;
  }
}
