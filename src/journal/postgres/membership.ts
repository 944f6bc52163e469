// The job's runners, in the `runners` table. For now one runner per job, as SQLite's lock: a live
// runner refuses the next (JournalBusyError); one whose process is gone (this host) or whose
// heartbeat is stale (another host) is taken over. Each runner has its own row and id, so leases
// for many runners per job can follow without a new table.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import type { RunnerMembership, RunnerTakeover, RunnerView } from '../store.js';
import { judgeRunner, type RunnerLiveness } from '../runner-liveness.js';
import { pidAlive, processStartOf } from '../process-identity.js';
import { JournalBusyError, staleAfterMs } from '../sqlite/lock.js';
import { exclusiveLockSql } from './advisory-locks.js';
import { inTransaction } from './pool.js';

interface RunnerRow {
  runner_id: string; pid: number; host: string; process_start: string | null;
  started_at: number; heartbeat_at: number; lease_until: number; rows: number;
}

export class PgMembership implements RunnerMembership {
  /** This process's runner id while it is a runner of the job. */
  private held: string | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly jobId: () => number | undefined,
    private readonly clock: { now(): number },
    /** How busy errors name the journal: its redacted URL and the job. */
    private readonly name: string,
    private readonly readonly = false,
  ) {}

  get runnerId(): string | undefined {
    return this.held;
  }

  private judge(row: RunnerRow): RunnerLiveness {
    return judgeRunner(
      { pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at, processStart: row.process_start },
      { now: this.clock.now(), thisHost: hostname(), staleAfterMs: staleAfterMs(), pidAlive },
    );
  }

  async acquire(): Promise<RunnerTakeover | undefined> {
    const jobId = this.requireJob();
    const runnerId = randomUUID();
    const takeover = await inTransaction(this.pool, async (client) => {
      await client.query(`SELECT ${exclusiveLockSql('membership', '$1')}`, [jobId]);
      const rows = (await client.query<RunnerRow>('SELECT * FROM runners WHERE job_id = $1 ORDER BY heartbeat_at DESC', [jobId])).rows;
      const live = rows.find((row) => this.judge(row).alive);
      if (live) throw new JournalBusyError(this.name, live.pid, live.host);
      const gone = rows[0];
      await client.query('DELETE FROM runners WHERE job_id = $1', [jobId]);
      const now = this.clock.now();
      await client.query(`INSERT INTO runners (job_id, runner_id, pid, host, process_start, started_at, heartbeat_at, lease_until)
        VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`, [jobId, runnerId, process.pid, hostname(), processStartOf(process.pid), now, now + staleAfterMs()]);
      return gone ? { pid: gone.pid, host: gone.host, heartbeatAt: gone.heartbeat_at } : undefined;
    });
    this.held = runnerId;
    return takeover;
  }

  async heartbeat(): Promise<boolean> {
    if (!this.held) return true;
    const now = this.clock.now();
    const result = await this.pool.query('UPDATE runners SET heartbeat_at = $1, lease_until = $2 WHERE job_id = $3 AND runner_id = $4',
      [now, now + staleAfterMs(), this.jobId(), this.held]);
    return result.rowCount === 1;
  }

  async release(): Promise<void> {
    if (!this.held || this.pool.ended) return;
    await this.pool.query('DELETE FROM runners WHERE job_id = $1 AND runner_id = $2', [this.jobId(), this.held]);
    this.held = undefined;
  }

  forget(): void {
    this.held = undefined;
  }

  /**
   * Every runner row with its liveness. Rows held: the items it owns; with one runner per job, also the
   * rows left `submitting` unowned (the single runner's, as SQLite counts them).
   */
  async runners(): Promise<RunnerView[]> {
    const jobId = this.jobId();
    if (jobId === undefined) return [];
    const rows = (await this.pool.query<RunnerRow>(`SELECT r.*,
        (SELECT COUNT(*) FROM items i WHERE i.job_id = r.job_id AND i.owner = r.runner_id) AS rows
      FROM runners r WHERE r.job_id = $1 ORDER BY r.started_at, r.runner_id`, [jobId])).rows;
    let unowned = 0;
    if (rows.length === 1) {
      const count = await this.pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM items WHERE job_id = $1 AND owner IS NULL AND state = 'submitting'`, [jobId]);
      unowned = count.rows[0]?.n ?? 0;
    }
    return rows.map((row) => ({
      runnerId: row.runner_id, pid: row.pid, host: row.host, startedAt: row.started_at, heartbeatAt: row.heartbeat_at,
      rows: row.rows + unowned, liveness: this.judge(row),
    }));
  }

  private requireJob(): number {
    const jobId = this.jobId();
    if (jobId === undefined || this.readonly) throw new Error(`${this.name}: opened read-only; a read-only store cannot be a runner`);
    return jobId;
  }
}
