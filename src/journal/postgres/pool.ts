// The connection pool of one PostgreSQL journal, and the one way a transaction is run on it.
import pg from 'pg';
import { badUrlError, connectionError } from './database-url.js';
import { staleAfterMs } from '../runner-standing.js';
import { retryOutage } from './connection-loss.js';

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

const INT8 = 20;
const NUMERIC = 1700;

// COUNT and SUM(bigint) come back as bigint/numeric text; the journal's figures are JS numbers, as
// SQLite gives them (every count and millisecond time here is far below 2^53).
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** How long a session may sit idle inside a transaction before the server ends it: one lease. */
export function idleInTransactionMs(): number {
  return Math.max(1000, staleAfterMs());
}

/**
 * A client of the pool held for a transaction. The server may end its session while it is held (idle
 * in a transaction past the limit, or a restart): pg then emits 'error' on the client, which would kill
 * the process with nobody listening; the listener keeps it for the next query on the client to report.
 */
export async function checkout(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  const ignore = (): void => {};
  client.on('error', ignore);
  const release = client.release.bind(client);
  client.release = (err?: Error | boolean) => {
    client.removeListener('error', ignore);
    release(err);
  };
  return client;
}

/**
 * Asks for compressed full-page images in the WAL of this session (lz4, else the server's default method):
 * after each checkpoint the first change to a page logs the whole page, most of what a row's transitions
 * write then. Only a superuser (or a role granted SET on it) may; for anyone else the server's own setting
 * stands, silently (the block catches the refusal, so the server logs no error).
 */
export const COMPRESS_WAL = `DO $$ BEGIN
  BEGIN PERFORM set_config('wal_compression', 'lz4', false);
  EXCEPTION WHEN OTHERS THEN
    BEGIN PERFORM set_config('wal_compression', 'on', false); EXCEPTION WHEN OTHERS THEN NULL; END;
  END;
END $$`;

/** The sessions a journal's pool opens at most, unless its opener says otherwise. */
const DEFAULT_POOL_SIZE = 8;

/** A pool on `url`, checked by one round trip: a server that cannot be reached is a ConfigError now. */
export async function connectPool(url: string, size = DEFAULT_POOL_SIZE): Promise<pg.Pool> {
  let pool: pg.Pool;
  try {
    new URL(url);
    // A runner frozen (or cut off) inside a transaction would hold its row and advisory locks for as long
    // as its connection lives, stalling every other runner of the job: the server ends such a session once
    // it has sat idle in a transaction for a lease, and the frozen runner's commit then fails.
    pool = new pg.Pool({
      connectionString: url,
      types,
      max: size,
      connectionTimeoutMillis: 10_000,
      idle_in_transaction_session_timeout: idleInTransactionMs(),
      // Run on each new session before the pool hands it out, so nothing else is queued on it meanwhile
      // (a query sent from the 'connect' event raced the pool's own: pg deprecates that). A role that may
      // not set it keeps the server's setting; the session is used all the same. pg-pool awaits the promise
      // (its onConnect goes through _promiseTry); @types/pg types the callback as returning void.
      // eslint-disable-next-line @typescript-eslint/no-misused-promises
      onConnect: (client) =>
        client.query(COMPRESS_WAL).then(
          () => undefined,
          () => undefined,
        ),
    });
  } catch (err) {
    throw badUrlError(url, err instanceof Error ? err.message.replace(url, '') : String(err));
  }
  // An idle client whose server went away emits 'error' on the pool; the next query reports it.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    throw connectionError(url, err);
  }
  return riding(pool);
}

/**
 * The pool, its connections and its one-statement queries retried through a brief outage (the server
 * restarting, its sessions ended), for at most the outage bound: the one place a lost connection is
 * waited out. A statement whose connection dropped either never ran or ran whole (each is its own
 * transaction); what the journal sends this way is a read, a write that changes nothing the second time,
 * or a compare-and-set that its caller re-reads when a repeat is refused (followedConnectionLoss).
 * Callback forms and streamed queries (COPY) pass as they are.
 */
function riding(pool: pg.Pool): pg.Pool {
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient>;
  const plain = (args: unknown[]): boolean =>
    typeof args.at(-1) !== 'function' &&
    !(
      typeof args[0] === 'object' &&
      args[0] !== null &&
      typeof (args[0] as { submit?: unknown }).submit === 'function'
    );
  pool.query = ((...args: unknown[]) =>
    plain(args) ? retryOutage(() => query(...args)) : query(...args)) as typeof pool.query;
  pool.connect = ((...args: unknown[]) =>
    args.length === 0 ? retryOutage(() => connect()) : connect(...args)) as typeof pool.connect;
  return pool;
}

/**
 * Runs `body` in one transaction on a client of its own: COMMIT when it returns, ROLLBACK when it throws.
 * `settings` (SET LOCAL statements, no parameters) go with the BEGIN, in its round trip. A transaction
 * whose connection was lost is run again whole (the server rolled it back, or, lost at its COMMIT, it
 * landed: its compare-and-set writes are then refused as stale), for at most the outage bound.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
  settings = '',
): Promise<T> {
  return retryOutage(() => transactionOnce(pool, body, settings));
}

async function transactionOnce<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
  settings: string,
): Promise<T> {
  const client = await checkout(pool);
  let broken: Error | undefined;
  try {
    await client.query(settings ? `BEGIN; ${settings}` : 'BEGIN');
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // A client that cannot even roll back (its connection is gone) is destroyed, not pooled again.
    await client.query('ROLLBACK').catch((rollbackFailure: Error) => {
      broken = rollbackFailure;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
