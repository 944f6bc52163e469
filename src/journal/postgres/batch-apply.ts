// The one write of rows on PostgreSQL: a plan (core/plan-changes.ts) goes to gbatch_apply_plan
// (functions/apply-plan.sql) as one JSON document. The database checks each row's from-state and whose it
// is, writes the rows and their events, moves the job's money under the budget and refuses an intent after
// a cancel, or refuses the whole batch. A runner's group commit is planned here on the states it expects
// the rows in, the call its own transaction (one round trip); a batch planned on the rows' heads
// (transitions.ts) calls it inside the caller's transaction.
import type pg from 'pg';
import { canTransition, type ItemState } from '../../core/states.js';
import { planOnExpected, RESEND_EVENTS, type ChangePlan } from '../../core/plan-changes.js';
import { StaleTransitionError, type Change, type Move } from '../change.js';
import type { ItemPatch } from '../item.js';
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

/** One planned row as gbatch_apply_plan takes it (functions/apply-plan.sql). */
export interface PlanRow {
  id: string;
  /** From and to state. */
  f: string;
  t: string;
  /** Whose the row becomes (null: no one's); left out: as it is (a note). */
  o?: string | null;
  /** The patched columns by name; a reservation is the attempt's (the row's carried booking goes on top). */
  p: Record<string, unknown>;
  /** The event logged and its detail. */
  e: string;
  d: string | null;
  /** Whose rows it may take besides no one's and the runner's: anyone's (true), or these runners'. */
  w?: true | readonly string[];
}

/** The plan's rows as the function takes them; `may`: whose rows the writer may take (see PlanRow.w). */
export function planRows(plan: Omit<ChangePlan, 'money'>, may?: true | readonly string[]): PlanRow[] {
  return plan.rows.map(({ change, from, to, owner, money }, i) => {
    const event = plan.events[i]!;
    // The stored money as planned, but a reservation as the attempt's: the database adds the row's carried booking.
    const attempt =
      money.reservedUsd === undefined
        ? {}
        : { reservedUsd: change.patch?.reservedUsd ?? 0, carriedUsd: money.carriedUsd };
    const { columns, values } = patchFields({ ...change.patch, ...money, ...attempt } as ItemPatch);
    return {
      id: change.id,
      f: from,
      t: to,
      ...(owner === undefined ? {} : { o: owner }),
      p: Object.fromEntries(columns.map((column, c) => [column, values[c]])),
      e: event.event,
      d: event.detail,
      ...(may === undefined ? {} : { w: may }),
    };
  });
}

/**
 * Applies a batchable() batch in one round trip; throws StaleTransitionError, BudgetExceededError,
 * JobCancelledError or BatchLeaseLostError as the database refuses it.
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
  const rows = planRows(plan);
  // Refused as stale on a repeat after a lost connection: the first attempt may have landed. It did
  // when every row is already where the batch takes it (no one else moves a row of this runner's so).
  await callApplyPlan(db, jobId, runnerId, now, rows, plan.intentId, defer, () => landed(db, jobId, rows));
  return moves;
}

/**
 * Writes planned rows (each named once) with gbatch_apply_plan, guarded there; the database's refusal
 * comes back as the journal's error (StaleTransitionError, BudgetExceededError, JobCancelledError,
 * BatchLeaseLostError).
 */
export async function callApplyPlan(
  db: Pick<pg.ClientBase, 'query'>,
  jobId: number,
  runnerId: string | undefined,
  now: number,
  rows: readonly PlanRow[],
  intentId: string | undefined,
  defer: boolean,
  landedBefore?: () => Promise<boolean>,
): Promise<void> {
  try {
    await db.query('SELECT gbatch_apply_plan($1, $2, $3, $4, $5, $6)', [
      jobId,
      runnerId ?? null,
      now,
      JSON.stringify(rows),
      intentId ?? null,
      defer,
    ]);
  } catch (err) {
    // `landedBefore`: whether a repeat refused as stale after a lost connection found the first attempt landed.
    const stale = (err as { code?: string }).code === STALE;
    if (stale && landedBefore && followedConnectionLoss(err) && (await landedBefore())) return;
    throw refusal(err, rows);
  }
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
function refusal(err: unknown, rows: readonly PlanRow[]): unknown {
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
  if (code === OVER_BUDGET)
    return new BudgetExceededError(facts.id, facts.budget!, roundMoney(facts.held!), roundMoney(facts.asked!));
  const row = rows.find((r) => r.id === facts.id);
  if (!row) return err;
  if (facts.state == null) return new Error(`unknown item '${facts.id}'`);
  const from = row.f as ItemState;
  // A row in the state expected but held by another runner: stale, as the compare-and-set found it.
  return facts.state === from
    ? new StaleTransitionError(row.id, row.e, from)
    : new StaleTransitionError(row.id, row.e, from, facts.state as ItemState);
}

function roundMoney(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
