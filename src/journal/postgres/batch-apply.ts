// A runner's group commit in one round trip: the batch is planned here (core/plan-changes.ts) on the
// states the writer expects the rows in, and the plan goes to gbatch_apply_plan
// (migrations/012-apply-plan-function.sql) as one JSON
// document, the statement its own transaction. The database checks those expectations (and whose each
// row is), writes the rows and their events and moves the job's money, or refuses the whole batch.
import type pg from 'pg';
import { canTransition } from '../../core/states.js';
import { planOnExpected, RESEND_EVENTS } from '../../core/plan-changes.js';
import { StaleTransitionError, type Change, type Move } from '../change.js';
import { patchFields } from './item-row.js';
import { followedConnectionLoss } from './connection-loss.js';
import { BatchLeaseLostError, BudgetExceededError, JobCancelledError } from '../errors.js';

/** The SQLSTATEs gbatch_apply_plan raises. */
const STALE = 'GB001';
const OVER_BUDGET = 'GB002';
const LEASE_LOST = 'GB003';
const CANCELLED = 'GB004';

/**
 * Whether the batch can take the one-statement path: every change names the state it expects (the
 * commit queue's always do) and is legal from it (an illegal one goes the long way, which tells a stale
 * row from a bug), no row is changed twice (the second would be judged on the first's result), and
 * every number in the patches survives JSON (a NaN would not). A resend moves the row's carried booking,
 * which only the row's head says: it goes the long way.
 */
export function batchable(changes: readonly Change[]): boolean {
  if (changes.some((c) => c.expect === undefined || !canTransition(c.expect, c.event))) return false;
  if (changes.some((c) => RESEND_EVENTS.has(c.event))) return false;
  if (new Set(changes.map((c) => c.id)).size !== changes.length) return false;
  return changes.every((c) => Object.values(c.patch ?? {}).every((v) => typeof v !== 'number' || Number.isFinite(v)));
}

/**
 * Applies a batchable() batch; throws StaleTransitionError, BudgetExceededError, JobCancelledError or
 * BatchLeaseLostError as the database refuses it.
 */
export async function applyBatch(
  db: Pick<pg.Pool, 'query'>,
  jobId: number,
  runnerId: string | undefined,
  changes: readonly Change[],
  now: number,
  defer: boolean,
): Promise<Move[]> {
  const plan = planOnExpected(changes, { runner: runnerId, now });
  const moves: Move[] = plan.rows.map(({ from, to }) => ({ from, to, at: now }));
  const rows = plan.rows.map(({ change, from, to, owner }, i) => {
    const { columns, values } = patchFields(change.patch ?? {});
    const event = plan.events[i]!;
    return {
      id: change.id,
      f: from,
      t: to,
      o: owner,
      p: Object.fromEntries(columns.map((column, c) => [column, values[c]])),
      e: event.event,
      d: event.detail,
    };
  });
  try {
    await db.query('SELECT gbatch_apply_plan($1, $2, $3, $4, $5, $6)', [
      jobId,
      runnerId ?? null,
      now,
      JSON.stringify(rows),
      plan.intentId ?? null,
      defer,
    ]);
  } catch (err) {
    // Refused as stale on a repeat after a lost connection: the first attempt may have landed. It did
    // when every row is already where the batch takes it (no one else moves a row of this runner's so).
    if (followedConnectionLoss(err) && (err as { code?: string }).code === STALE && (await landed(db, jobId, rows)))
      return moves;
    throw refusal(err, changes);
  }
  return moves;
}

async function landed(
  db: Pick<pg.Pool, 'query'>,
  jobId: number,
  rows: ReadonlyArray<{ id: string; t: string }>,
): Promise<boolean> {
  const { rows: found } = await db.query<{ id: string; state: string }>(
    'SELECT id, state FROM items WHERE job_id = $1 AND id = ANY($2)',
    [jobId, rows.map((r) => r.id)],
  );
  const now = new Map(found.map((r) => [r.id, r.state]));
  return rows.every((r) => now.get(r.id) === r.t);
}

/** The database's refusal as the journal's errors; any other error as it came. */
function refusal(err: unknown, changes: readonly Change[]): unknown {
  const { code, detail } = err as { code?: string; detail?: string };
  if (code === LEASE_LOST) return new BatchLeaseLostError();
  if (code !== STALE && code !== OVER_BUDGET && code !== CANCELLED) return err;
  const facts = JSON.parse(detail ?? '{}') as {
    id: string;
    state?: string | null;
    budget?: number;
    held?: number;
    asked?: number;
  };
  if (code === CANCELLED) return new JobCancelledError(facts.id);
  const change = changes.find((c) => c.id === facts.id);
  if (code === OVER_BUDGET)
    return new BudgetExceededError(facts.id, facts.budget!, roundMoney(facts.held!), roundMoney(facts.asked!));
  if (!change) return err;
  if (facts.state == null) return new Error(`unknown item '${facts.id}'`);
  // A row in the state expected but held by another runner: stale, as the compare-and-set found it.
  return facts.state === change.expect
    ? new StaleTransitionError(change.id, change.event, change.expect)
    : new StaleTransitionError(change.id, change.event, change.expect!, facts.state as Change['expect'] & string);
}

function roundMoney(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
