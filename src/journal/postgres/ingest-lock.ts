// The job's ingest lock, waited for in bounded steps. A runner frozen in the middle of its COPY keeps its
// session busy in the COPY, which no server timeout ends (idle_in_transaction does not apply, and the
// server does not act on a statement_timeout while it waits for COPY data), so it would hold the lock, and
// stall every other runner of the job, for as long as it stays frozen. The holder names itself on its
// session (application_name: its runner id); a runner waiting for the lock looks each step at who holds
// it, says so, and once the holder's lease has expired (a live runner renews it every beat, a frozen one
// cannot) ends the holder's session: its transaction rolls back, nothing of its pass is left, and the
// lock goes to the next runner. A holder that cannot be ended, or is not a runner of the job, is waited for
// up to a bound, then the run stops (exit 75) naming it.
import type pg from 'pg';
import { positiveKnob } from '../../core/test-knob.js';
import { printable } from '../../core/printable.js';
import { staleAfterMs } from '../runner-standing.js';
import { exclusiveLockSql, lockKeySql } from './advisory-locks.js';
import { DB_NOW_MS } from './db-time.js';
import { IngestLockWaitError } from '../errors.js';

/**
 * How long a waiter waits for a holder it cannot end (a session that is not a runner of the job, or one it may not
 * end).
 */
const INGEST_WAIT_MS = 10 * 60_000;
const APP_PREFIX = 'gbatch runner ';
/** lock_timeout's SQLSTATE. */
const LOCK_NOT_AVAILABLE = '55P03';

export interface IngestLockWait {
  /** This runner's id: the holder is named by it while it holds the lock. */
  runnerId: string | undefined;
  /** A line for the operator: what the wait is for and who holds the lock. */
  say?(line: string): void;
}

interface Holder {
  pid: number;
  app: string;
  state: string | null;
  runner_pid: number | null;
  host: string | null;
  lease_left_ms: number | null;
  swept: boolean | null;
}

/** Takes the job's ingest lock inside the open transaction on `client`, waiting for it as above. */
export async function takeIngestLock(client: pg.PoolClient, jobId: number, wait: IngestLockWait): Promise<void> {
  if (wait.runnerId !== undefined)
    await client.query(`SET LOCAL application_name = '${APP_PREFIX}${wait.runnerId.replace(/[^0-9a-f-]/g, '')}'`);
  const stepMs = Math.max(100, Math.floor(staleAfterMs() / 4));
  const boundMs = positiveKnob(process.env, 'GBATCH_INGEST_WAIT_MS', INGEST_WAIT_MS);
  const started = performance.now();
  let said = '';
  for (;;) {
    await client.query(`SAVEPOINT ingest_lock; SET LOCAL lock_timeout = ${stepMs}`);
    try {
      await client.query(`SELECT ${exclusiveLockSql('ingest', '$1')}`, [jobId]);
      await client.query('SET LOCAL lock_timeout = 0; RELEASE SAVEPOINT ingest_lock');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      await client.query('ROLLBACK TO SAVEPOINT ingest_lock');
    }
    const holder = await lockHolder(client, jobId);
    if (!holder) continue; // released between the timeout and the look
    const name = holderName(holder);
    const expired = holder.runner_pid !== null && (holder.swept === true || (holder.lease_left_ms ?? 0) <= 0);
    if (expired && (await endSession(client, holder.pid))) {
      wait.say?.(
        `the job's ingest lock was held by ${name}, whose lease expired: its database session was ended (its ingest rolls back whole)`,
      );
      continue;
    }
    const waited = performance.now() - started;
    if (waited >= boundMs) throw new IngestLockWaitError(name, waited);
    // Said once per holder (and again when its lease runs out): a wait of minutes is a line, not hundreds.
    const told = `${name}|${expired}`;
    if (told === said) continue;
    said = told;
    wait.say?.(
      `waiting for the job's ingest lock: ${name} holds it${
        holder.runner_pid !== null && !expired
          ? ` (its lease ends in ${Math.max(0, Math.ceil((holder.lease_left_ms ?? 0) / 1000))} s unless it renews it)`
          : ''
      }`,
    );
  }
}

/** The session holding the job's ingest lock, and the runner it names, if any. */
async function lockHolder(client: pg.PoolClient, jobId: number): Promise<Holder | undefined> {
  const { rows } = await client.query<Holder>(
    `SELECT a.pid, a.application_name AS app, a.state, r.pid AS runner_pid, r.host,
      r.lease_until - ${DB_NOW_MS} AS lease_left_ms, r.swept_at IS NOT NULL AS swept
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    LEFT JOIN runners r ON r.job_id = $1 AND a.application_name = '${APP_PREFIX}' || r.runner_id::text
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND l.classid::bigint = (${lockKeySql('ingest')}::bigint + 4294967296) % 4294967296 AND l.objid::bigint = ($1::int::bigint + 4294967296) % 4294967296
    LIMIT 1`,
    [jobId],
  );
  return rows[0];
}

function holderName(holder: Holder): string {
  return holder.runner_pid !== null
    ? `runner pid ${holder.runner_pid} on ${printable(holder.host ?? '?')} (database session ${holder.pid})`
    : `database session ${holder.pid} (${printable(holder.app || 'no application name').slice(0, 80)}, ${holder.state ?? 'state unknown'})`;
}

/** Ends the session; false when this role may not (the holder then stays, and the wait is bounded). */
async function endSession(client: pg.PoolClient, pid: number): Promise<boolean> {
  await client.query('SAVEPOINT end_holder');
  try {
    const { rows } = await client.query<{ ended: boolean }>('SELECT pg_terminate_backend($1, 5000) AS ended', [pid]);
    await client.query('RELEASE SAVEPOINT end_holder');
    return rows[0]?.ended === true;
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT end_holder');
    return false;
  }
}
