// What the runners of a job agree through the database: a 402 that stops them all, the account's send
// slots under a shared --rpm, a 429's pause, and work only one of them may do at a time. Times are on
// the database's clock, so hosts whose clocks disagree still share one pace.
import type pg from 'pg';
import { roundUsd } from '../../core/money.js';
import { DRIFT_COLUMNS, driftOfRow, type DriftRow } from '../drift-rows.js';
import type { Coordination, JobMoney } from '../store.js';
import { DB_NOW_MS } from './db-time.js';
import { LocalTurns } from './local-turns.js';
import { checkout, idleInTransactionMs } from './pool.js';
import type { PgMembership } from './membership.js';

/** Rows whose reservation may still settle or be released: a request on its way, a task the gateway runs. */
const IN_FLIGHT = ['submitting', 'submitted', 'running'];

export class PgCoordination implements Coordination {
  private readonly turns = new LocalTurns();

  constructor(
    private readonly pool: pg.Pool,
    private readonly jobId: () => number | undefined,
    private readonly membership: PgMembership,
  ) {}

  async stopSubmissions(reason: 'balance'): Promise<void> {
    await this.pool.query(`UPDATE jobs SET stop_reason = $2, stopped_at = ${DB_NOW_MS} WHERE id = $1`, [
      this.jobId(),
      reason,
    ]);
  }

  async submissionsStopped(): Promise<'balance' | undefined> {
    const { rows } = await this.pool.query<{ stop_reason: string | null }>(
      'SELECT stop_reason FROM jobs WHERE id = $1 AND stopped_at >= $2',
      [this.jobId(), this.membership.joinedAt],
    );
    return rows[0]?.stop_reason === 'balance' ? 'balance' : undefined;
  }

  async stoppedAtBalance(): Promise<boolean> {
    const { rows } = await this.pool.query<{ stop_reason: string | null }>(
      'SELECT stop_reason FROM jobs WHERE id = $1',
      [this.jobId()],
    );
    return rows[0]?.stop_reason === 'balance';
  }

  async takeSendSlot(account: string, intervalMs: number): Promise<number> {
    // Each send takes the slot after the last one taken (or now, when the account has been idle): sends
    // of the account are `intervalMs` apart, however many runners take slots.
    const { rows } = await this.pool.query<{ wait: number }>(
      `WITH n AS (SELECT ${DB_NOW_MS} AS ms)
      INSERT INTO accounts AS a (account, next_send_at) SELECT $1, n.ms + $2 FROM n
      ON CONFLICT (account) DO UPDATE SET next_send_at = GREATEST(a.next_send_at, (SELECT ms FROM n)) + $2
      RETURNING a.next_send_at - $2 - (SELECT ms FROM n) AS wait`,
      [account, intervalMs],
    );
    return Math.max(0, rows[0]!.wait);
  }

  async pauseAccount(account: string, ms: number): Promise<void> {
    await this.pool.query(
      `WITH n AS (SELECT ${DB_NOW_MS} AS ms)
      INSERT INTO accounts AS a (account, paused_until) SELECT $1, n.ms + $2 FROM n
      ON CONFLICT (account) DO UPDATE SET paused_until = GREATEST(a.paused_until, (SELECT ms FROM n) + $2)`,
      [account, Math.ceil(ms)],
    );
  }

  async accountPause(account: string): Promise<number> {
    const { rows } = await this.pool.query<{ left: number }>(
      `SELECT GREATEST(0, paused_until - ${DB_NOW_MS}) AS left FROM accounts WHERE account = $1`,
      [account],
    );
    return rows[0]?.left ?? 0;
  }

  // The table is named for its first use (migration 006): a key is any exclusive work's, the text opaque.
  async handover(key: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ settled: string }>(
      'SELECT settled FROM results_files WHERE job_id = $1 AND file = $2 AND recorded_at >= $3',
      [this.jobId(), key, this.membership.joinedAt],
    );
    return rows[0]?.settled;
  }

  async recordHandover(key: string, text: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO results_files (job_id, file, settled, recorded_at) VALUES ($1, $2, $3, ${DB_NOW_MS})
      ON CONFLICT (job_id, file) DO UPDATE SET settled = excluded.settled, recorded_at = excluded.recorded_at`,
      [this.jobId(), key, text],
    );
  }

  async jobMoney(): Promise<JobMoney> {
    // The group ratios seen ride on the same read: a runner scales by another's as soon as it looks at the money.
    const { rows } = await this.pool.query<{
      reserved_usd: number;
      actual_usd: number;
      in_flight: boolean;
      budget_usd: number | null;
      drifts: DriftRow[] | null;
    }>(
      `SELECT reserved_usd, actual_usd, budget_usd,
      EXISTS (SELECT 1 FROM items WHERE job_id = $1 AND state = ANY($2)) AS in_flight,
      (SELECT json_agg(json_build_object(${DRIFT_COLUMNS.map((c) => `'${c}', ${c}`).join(', ')}) ORDER BY account, model)
        FROM drifts WHERE job_id = $1) AS drifts
      FROM jobs WHERE id = $1`,
      [this.jobId(), IN_FLIGHT],
    );
    const row = rows[0];
    return {
      reservedUsd: roundUsd(row?.reserved_usd ?? 0),
      actualUsd: roundUsd(row?.actual_usd ?? 0),
      inFlight: row?.in_flight ?? false,
      budgetUsd: row?.budget_usd ?? undefined,
      drifts: (row?.drifts ?? []).map(driftOfRow),
    };
  }

  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    // Local callers take turns first: one session of this pool per name ever waits on the server (local-turns.ts).
    return this.turns.take(name, () => this.exclusiveOnServer(name, work));
  }

  private async exclusiveOnServer<T>(name: string, work: () => Promise<T>): Promise<T> {
    // The lock belongs to a transaction held open on a client of its own. A runner that dies mid-work
    // frees it with its connection; one that freezes leaves the transaction idle, and the server ends
    // the session after a lease (the pool's idle_in_transaction_session_timeout), so the others do not
    // wait on it for ever. While the work runs, a beat on the client keeps a live holder from looking idle.
    const client = await checkout(this.pool);
    const key = [`hashtext(current_schema() || ':gbatch:${name.replace(/[^a-z-]/g, '')}')`, '$1::int'].join(', ');
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(${key})`, [this.jobId()]);
      const beat = setInterval(() => {
        client.query('SELECT 1').catch((err: Error) => {
          broken ??= err;
        });
      }, beatMs());
      try {
        return await work();
      } finally {
        clearInterval(beat);
        await client.query('COMMIT').catch((err: Error) => {
          broken ??= err;
        });
      }
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackFailure: Error) => {
        broken ??= rollbackFailure;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

/** A quarter of the server's idle-in-transaction limit: three beats may be late before the session is ended. */
function beatMs(): number {
  return Math.max(100, Math.floor(idleInTransactionMs() / 4));
}
