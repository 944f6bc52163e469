// The job's runners, in the `runners` table: any number per job, each with a lease on the database's
// clock that its heartbeat renews. A runner whose lease expired, or whose process on this host is gone,
// is swept by another: its `submitting` rows become uncertain (never resent blindly), its tasks in
// flight and answers to download become the sweeper's, its claimed pending rows free again. A runner
// that comes back after its lease expired finds its row swept and writes nothing more.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import type { Item, ItemRow } from '../item.js';
import type { RunnerMembership, RunnerTakeover, RunnerView, Takeover } from '../store.js';
import type { RunnerLiveness } from '../runner-liveness.js';
import { pidAlive, processStartOf } from '../process-identity.js';
import { staleAfterMs } from '../runner-standing.js';
import { exclusiveLockSql } from './advisory-locks.js';
import { DB_NOW_MS } from './db-time.js';
import { ITEM_COLUMNS, toItem } from './item-row.js';
import { inTransaction, type Queryable } from './pool.js';
import { NOT_ORPHANED_SQL } from '../orphans.js';
import { applyChanges, HELD_STATES } from './transitions.js';

/** Beats between two looks at the rows in flight while the job's runners stay the same (see heldRowsLook). */
export const HELD_ROWS_LOOK_EVERY = 10;

/** How long status keeps showing a runner that was swept. */
const SWEPT_KEPT_MS = 24 * 3600_000;

interface RunnerRow {
  runner_id: string;
  pid: number;
  host: string;
  process_start: string | null;
  started_at: number;
  heartbeat_at: number;
  lease_until: number;
  swept_at: number | null;
  db_now: number;
  rows: number;
  cancel_seen_at?: number | null;
}

/**
 * Whether a runner is gone: its lease expired (on the database's clock, whatever its pid says: a frozen
 * runner loses its rows), or, on this host, its process is no longer there (no need to wait for the lease).
 */
export function judgeLease(
  row: Pick<RunnerRow, 'pid' | 'host' | 'process_start' | 'heartbeat_at' | 'lease_until' | 'swept_at' | 'db_now'>,
  facts: { thisHost: string; pidAlive: (pid: number, processStart: string | null) => boolean },
): RunnerLiveness {
  const heartbeatAgeMs = Math.max(0, row.db_now - row.heartbeat_at);
  if (row.swept_at !== null || row.lease_until <= row.db_now)
    return { alive: false, heartbeatAgeMs, basis: 'heartbeat-stale' };
  if (row.host === facts.thisHost && !facts.pidAlive(row.pid, row.process_start))
    return { alive: false, heartbeatAgeMs, basis: 'pid-gone' };
  return { alive: true, heartbeatAgeMs, basis: row.host === facts.thisHost ? 'pid-alive' : 'heartbeat-fresh' };
}

/** The job's runners not swept, on the database's clock, without the rows each holds. */
async function runnerRows(db: Queryable, jobId: number): Promise<RunnerRow[]> {
  const { rows } = await db.query<RunnerRow>(
    `SELECT r.*, ${DB_NOW_MS} AS db_now, 0 AS rows FROM runners r WHERE r.job_id = $1 AND r.swept_at IS NULL`,
    [jobId],
  );
  return rows;
}

export class PgMembership implements RunnerMembership {
  /** This process's runner id while it is a runner of the job. */
  private held: string | undefined;
  /** When the database last confirmed this runner's lease (performance.now ms). */
  private confirmed = 0;
  /** This runner's start on the database's clock: stops it is told of are those made since. */
  joinedAt = 0;
  /** Whether this runner ever claimed pending rows: one that never did has no claim to clear when it leaves. */
  private claimed = false;
  /**
   * The runners the last look at the job's rows in flight found every such row held by, and the beats since. Such a
   * row loses its holder when a runner leaves (release() frees what it holds and deletes its runner row in one
   * transaction) or is gone (swept): the runners read each beat show both at once. The rows are read (every row in
   * flight, on every runner of the job, each beat: what grew with the square of the runners) only when the runners
   * changed, or every HELD_ROWS_LOOK_EVERY beats for a runner that came and left between two of them.
   */
  private heldRowsLook: { roster: string; beats: number } | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly jobId: () => number | undefined,
    private readonly clock: { now(): number },
    /** How errors name the journal: its redacted URL and the job. */
    private readonly name: string,
    private readonly readonly = false,
  ) {}

  get runnerId(): string | undefined {
    return this.held;
  }

  private judge(row: RunnerRow): RunnerLiveness {
    return judgeLease(row, { thisHost: hostname(), pidAlive });
  }

  /** Joins the job as one more runner; runners already there are not disturbed. */
  async acquire(): Promise<RunnerTakeover | undefined> {
    const jobId = this.requireJob();
    const runnerId = randomUUID();
    const { rows } = await this.pool.query<{ now: number }>(
      `INSERT INTO runners (job_id, runner_id, pid, host, process_start, started_at, heartbeat_at, lease_until)
      SELECT $1, $2, $3, $4, $5, n.ms, n.ms, n.ms + $6 FROM (SELECT ${DB_NOW_MS} AS ms) n RETURNING started_at AS now`,
      [jobId, runnerId, process.pid, hostname(), processStartOf(process.pid), staleAfterMs()],
    );
    // Runners swept a day ago or more have told status all they could: their rows went to others.
    await this.pool.query(`DELETE FROM runners WHERE job_id = $1 AND swept_at < $2`, [
      jobId,
      rows[0]!.now - SWEPT_KEPT_MS,
    ]);
    this.held = runnerId;
    this.joinedAt = rows[0]!.now;
    this.confirm();
    return undefined;
  }

  /** Renews the lease; false once it expired or was swept: the rows are someone else's now. */
  async heartbeat(): Promise<boolean> {
    if (!this.held) return true;
    const result = await this.pool.query(
      `UPDATE runners SET heartbeat_at = n.ms, lease_until = n.ms + $1
      FROM (SELECT ${DB_NOW_MS} AS ms) n
      WHERE job_id = $2 AND runner_id = $3 AND swept_at IS NULL AND lease_until > n.ms`,
      [staleAfterMs(), this.jobId(), this.held],
    );
    if (result.rowCount !== 1) return false;
    this.confirm();
    return true;
  }

  /** Called before this runner claims pending rows. */
  noteClaim(): void {
    this.claimed = true;
  }

  /**
   * Leaves the job: what it still holds (tasks left in flight by --no-wait or a deadline) is no one's, for the next
   * runner.
   */
  async release(): Promise<void> {
    if (!this.held || this.pool.ended) return;
    const runnerId = this.held;
    const jobId = this.jobId();
    await inTransaction(this.pool, async (client) => {
      await client.query('UPDATE items SET owner = NULL WHERE job_id = $1 AND state = ANY($3) AND owner = $2', [
        jobId,
        runnerId,
        HELD_STATES,
      ]);
      // A claim only counts while the row is pending: the rows this runner sent keep theirs, unread. Finding
      // them reads every pending row (claimed_by has no index): not done by a runner that claimed none (--ingest-only).
      if (this.claimed)
        await client.query(
          `UPDATE items SET claimed_by = NULL WHERE job_id = $1 AND state = 'pending' AND claimed_by = $2`,
          [jobId, runnerId],
        );
      await client.query('DELETE FROM runners WHERE job_id = $1 AND runner_id = $2 AND swept_at IS NULL', [
        jobId,
        runnerId,
      ]);
    });
    this.held = undefined;
  }

  forget(): void {
    this.held = undefined;
  }

  /** A database is not lost under a runner as a file is: a runner loses its lease instead (heartbeat()). */
  lost(): undefined {
    return undefined;
  }

  async acknowledgeCancel(): Promise<void> {
    if (!this.held) return;
    await this.pool.query(`UPDATE runners SET cancel_seen_at = ${DB_NOW_MS} WHERE job_id = $1 AND runner_id = $2`, [
      this.jobId(),
      this.held,
    ]);
  }

  /** A write transaction proved the lease is still this runner's. */
  confirm(): void {
    this.confirmed = performance.now();
  }

  confirmedAt(): number {
    return this.held ? this.confirmed : performance.now();
  }

  async runners(): Promise<RunnerView[]> {
    const jobId = this.jobId();
    if (jobId === undefined) return [];
    const rows = (
      await this.pool.query<RunnerRow>(
        `SELECT r.*, ${DB_NOW_MS} AS db_now,
        (SELECT COUNT(*) FROM items i WHERE i.job_id = r.job_id AND i.state = ANY($2)
          AND (i.owner = r.runner_id OR (i.claimed_by = r.runner_id AND i.state = 'pending'))) AS rows
      FROM runners r WHERE r.job_id = $1 ORDER BY r.started_at, r.runner_id`,
        [jobId, ['pending', ...HELD_STATES]],
      )
    ).rows;
    return rows.map((row) => ({
      runnerId: row.runner_id,
      pid: row.pid,
      host: row.host,
      startedAt: row.started_at,
      heartbeatAt: row.heartbeat_at,
      rows: row.rows,
      liveness: this.judge(row),
      cancelSeenAt: row.cancel_seen_at ?? null,
    }));
  }

  /** The ids of the job's live runners, without the rows each holds (runners() counts them). */
  async liveRunnerIds(): Promise<string[]> {
    const jobId = this.jobId();
    if (jobId === undefined) return [];
    return (await runnerRows(this.pool, jobId)).filter((row) => this.judge(row).alive).map((row) => row.runner_id);
  }

  /**
   * An answer already received (a chat row waiting for its results line) is not waited for: any runner's rebuild writes
   * it.
   */
  async othersWork(): Promise<{ held: number; claimable: number }> {
    const jobId = this.jobId();
    if (jobId === undefined || !this.held) return { held: 0, claimable: 0 };
    const { rows } = await this.pool.query<{ held: number; claimable: number }>(
      `WITH others AS (
        SELECT runner_id FROM runners WHERE job_id = $1 AND runner_id <> $2 AND swept_at IS NULL)
      SELECT
        (SELECT COUNT(*) FROM items WHERE job_id = $1 AND state = ANY($3) AND owner IN (SELECT runner_id FROM others)
          AND NOT (state = 'succeeded' AND kind IN ('chat', 'responses'))) AS held,
        (SELECT COUNT(*) FROM items WHERE job_id = $1 AND state = 'pending' AND claimed_by IN (SELECT runner_id FROM others)) AS held_pending,
        (SELECT COUNT(*) FROM items WHERE job_id = $1 AND state = 'pending' AND ${NOT_ORPHANED_SQL}
          AND (claimed_by IS NULL OR claimed_by NOT IN (SELECT runner_id FROM others))) AS claimable`,
      [jobId, this.held, HELD_STATES],
    );
    const row = rows[0] as { held: number; held_pending: number; claimable: number } | undefined;
    return { held: (row?.held ?? 0) + (row?.held_pending ?? 0), claimable: row?.claimable ?? 0 };
  }

  /**
   * Takes over from runners that are gone, and rows no live runner holds. One sweeper at a time (the
   * job's membership lock); a row is taken over by exactly one runner.
   */
  async sweep(): Promise<Takeover> {
    const jobId = this.jobId();
    const none: Takeover = { madeUncertain: [], adopted: [], released: 0 };
    if (jobId === undefined || this.readonly || !this.held) return none;
    const look = await this.anythingToSweep(jobId);
    if (!look.any) return { ...none, runners: look.runners };
    return inTransaction(this.pool, async (client) => {
      await client.query(`SELECT ${exclusiveLockSql('membership', '$1')}`, [jobId]);
      const runners = await runnerRows(client, jobId);
      const gone = runners.filter((row) => row.runner_id !== this.held && !this.judge(row).alive);
      const live = runners.filter((row) => !gone.includes(row)).map((row) => row.runner_id);
      if (gone.length > 0) {
        await client.query(
          `UPDATE runners SET swept_at = ${DB_NOW_MS} WHERE job_id = $1 AND runner_id = ANY($2::uuid[])`,
          [jobId, gone.map((r) => r.runner_id)],
        );
      }
      return { ...(await this.takeOver(client, jobId, live, gone)), runners: live.length };
    });
  }

  /** A cheap look first: most beats find no runner gone and no row without a live holder. */
  private async anythingToSweep(jobId: number): Promise<{ any: boolean; runners: number }> {
    const runners = await runnerRows(this.pool, jobId);
    if (runners.some((row) => row.runner_id !== this.held && !this.judge(row).alive))
      return { any: true, runners: runners.length };
    const roster = runners
      .map((r) => r.runner_id)
      .sort()
      .join(' ');
    const last = this.heldRowsLook;
    if (last?.roster === roster && ++last.beats < HELD_ROWS_LOOK_EVERY) return { any: false, runners: runners.length };
    const { rows } = await this.pool.query(
      `SELECT 1 FROM items WHERE job_id = $1 AND state = ANY($2)
      AND (owner IS NULL OR owner <> ALL($3::uuid[])) LIMIT 1`,
      [jobId, HELD_STATES, runners.map((r) => r.runner_id)],
    );
    this.heldRowsLook = rows.length === 0 ? { roster, beats: 0 } : undefined;
    return { any: rows.length > 0, runners: runners.length };
  }

  private async takeOver(
    client: pg.PoolClient,
    jobId: number,
    live: readonly string[],
    gone: readonly RunnerRow[],
  ): Promise<Takeover> {
    const heldByNoOne = `(owner IS NULL OR owner <> ALL($2::uuid[]))`;
    const goneIds = gone.map((r) => r.runner_id);
    const interrupted = (
      await client.query<ItemRow & { owner: string | null }>(
        `SELECT ${ITEM_COLUMNS}, owner FROM items
      WHERE job_id = $1 AND state = 'submitting' AND ${heldByNoOne} ORDER BY seq FOR UPDATE`,
        [jobId, live],
      )
    ).rows;
    const madeUncertain = interrupted.map(toItem);
    const whose = (owner: string | null): string => {
      const runner = gone.find((r) => r.runner_id === owner);
      return runner ? `runner pid ${runner.pid} on ${runner.host}` : 'a runner that is gone';
    };
    await applyChanges(
      client,
      jobId,
      interrupted.map((row) => ({
        id: row.id,
        event: 'lose' as const,
        expect: 'submitting' as const,
        patch: {
          lastError: {
            message: `${whose(row.owner)} stopped while attempt ${row.attempts} may have been on the wire; the gateway may have kept it`,
          },
        },
        detail: { reason: 'runner-gone', attempt: row.attempts },
      })),
      this.clock.now(),
      // Written as no runner's (no row of the sweeper's is among them): the rows of the runners it sweeps.
      { runnerId: undefined, sweeping: [...goneIds, ...interrupted.flatMap((r) => (r.owner ? [r.owner] : []))] },
    );
    const adopted = (
      await client.query<ItemRow>(
        `UPDATE items SET owner = $3 WHERE job_id = $1 AND state = ANY($4) AND ${heldByNoOne}
      RETURNING ${ITEM_COLUMNS}`,
        [jobId, live, this.held, ['submitted', 'running', 'succeeded']],
      )
    ).rows.map(toItem);
    adopted.sort((a, b) => a.seq - b.seq);
    const released =
      goneIds.length === 0
        ? 0
        : ((
            await client.query(
              `UPDATE items SET claimed_by = NULL
      WHERE job_id = $1 AND claimed_by = ANY($2::uuid[]) AND state = 'pending'`,
              [jobId, goneIds],
            )
          ).rowCount ?? 0);
    return { madeUncertain, adopted: adopted as Item[], released };
  }

  private requireJob(): number {
    const jobId = this.jobId();
    if (jobId === undefined || this.readonly)
      throw new Error(`${this.name}: opened read-only; a read-only store cannot be a runner`);
    return jobId;
  }
}
