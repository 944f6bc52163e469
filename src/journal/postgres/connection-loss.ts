// A PostgreSQL journal out of reach, rather than refusing: the server restarting or shutting down, a
// session an administrator ended (pg_terminate_backend), a connection cut or refused, the database gone.
// Such a failure is retried for a bounded time (retryOutage); past it the run stops with exit 75.
import { systemClock, type Clock } from '../../core/clock.js';
import { outageBoundMs, outageRetryDelay } from '../../core/outage.js';

/**
 * SQLSTATE classes and codes of a lost or refused connection (08: connection exception; 57P0x: shutdown; 53300: too
 * many connections).
 */
const CODES = /^(08\d{3}|57P0[1-4]|53300|3D000)$/;
const ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres says these in words, without a code. */
const MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable/i;

/** Whether `err` (or what it wraps) is the journal's server out of reach. */
export function isConnectionLoss(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (/^(Gateway|Download)/.test(current.name)) return false; // the gateway's connection, not the journal's
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && (CODES.test(code) || ERRNOS.has(code))) return true;
    if (MESSAGES.test(current.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Errors thrown by an attempt that followed a lost connection: an earlier attempt's commit may have landed. */
const afterLoss = new WeakSet<object>();

export function followedConnectionLoss(err: unknown): boolean {
  return typeof err === 'object' && err !== null && afterLoss.has(err);
}

/**
 * Runs `attempt` again while it fails on a lost connection, for at most the outage bound; then (or on any
 * other error) throws what the last attempt threw. Only for work that is safe to repeat: reads, writes
 * that change nothing the second time, and compare-and-set writes (a repeat of one that did land is
 * refused, and its caller re-reads the row: followedConnectionLoss).
 */
export async function retryOutage<T>(
  attempt: () => Promise<T>,
  boundMs = outageBoundMs(),
  clock: Clock = systemClock,
  random: () => number = Math.random,
): Promise<T> {
  const started = clock.now();
  let lost = false;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (lost && typeof err === 'object' && err !== null) afterLoss.add(err);
      if (!isConnectionLoss(err)) throw err;
      const wait = outageRetryDelay(tries, clock.now() - started, boundMs, random);
      if (wait === undefined) throw err;
      lost = true;
      await clock.sleep(wait);
    }
  }
}
