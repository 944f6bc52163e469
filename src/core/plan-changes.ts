// What a batch of transitions does, decided once for every journal: each row's next state (the pure
// table), whose the row becomes, the event each move logs, the money the job's totals move by, and
// whether the batch holds an intent (a `submit`, refused while the job is cancelled). An adapter reads
// the rows' heads, plans, and then only writes the plan, guarded: compare-and-set on each row's
// from-state, the owner/lease fence, the budget check under the job's lock.
//
// The money rule, here and nowhere else: an attempt that may have been billed keeps its booking. A row
// is sent again (`resubmit`, `requeue`) holding whatever its last attempt still has booked (the bound
// of an uncertain request, the charge of an answer the gateway billed); that booking becomes the row's
// carried booking, part of its reservation for the rest of the job, and the new attempt reserves on top
// of it. Changes speak of the attempt (`reservedUsd`: this attempt's reservation); the row's stored
// reservation is the carried booking plus the attempt's.
import { roundUsd } from './money.js';
import { StaleTransitionError } from './stale-transition.js';
import { transition, type ItemEvent, type ItemState } from './states.js';

/**
 * A row as the plan needs it before the batch: its state and the money it holds as stored: `reservedUsd`
 * is the row's whole reservation, of which `carriedUsd` is what earlier attempts keep booked.
 */
export interface RowHead {
  state: ItemState;
  reservedUsd: number;
  actualUsd: number | null;
  carriedUsd?: number | undefined;
}

/** The part of a change the plan reads (the journal's Change is one). */
export interface PlannableChange {
  id: string;
  event: ItemEvent;
  expect?: ItemState | undefined;
  /** Attempt-level money: `reservedUsd` is this attempt's reservation (the carried booking comes on top). */
  patch?:
    | { reservedUsd?: number | undefined; actualUsd?: number | null | undefined; carriedUsd?: number | undefined }
    | undefined;
  detail?: Record<string, unknown> | undefined;
  /**
   * On a resend: the operator's word that the attempt sent before was not billed (they checked the gateway), so
   * it carries nothing on; what earlier attempts carry stays.
   */
  notBilled?: boolean | undefined;
}

/** Who writes: a runner of the job, or (undefined) an operator's command. */
export interface PlanContext {
  runner: string | undefined;
  now: number;
}

/** The money columns of a row as the plan stores them (written over the change's attempt-level patch). */
export interface StoredMoney {
  reservedUsd?: number;
  actualUsd?: number | null;
  carriedUsd?: number;
}

/** One row's write: compare-and-set from `from` to `to`, the row becoming `owner`'s (null: no one's). */
export interface PlannedRow<C extends PlannableChange = PlannableChange> {
  change: C;
  from: ItemState;
  to: ItemState;
  /** Whose the row becomes (null: no one's; undefined: as it is, for a note). */
  owner: string | null | undefined;
  /** The row's money as stored after the change: the change's patch with this written over it. */
  money: StoredMoney;
}

/** One event to append, in batch order. `detail` is the change's detail as stored (JSON text). */
export interface PlannedEvent {
  itemId: string;
  at: number;
  /** The change's event, or a note's name. */
  event: string;
  from: ItemState;
  to: ItemState;
  detail: string | null;
}

/**
 * What the batch moves the job's totals by (USD, unrounded, summed in batch order), and the first row
 * whose reservation it raises: a batch with one must leave settled + reserved within the budget.
 */
export interface MoneyMove {
  reservedUsd: number;
  actualUsd: number;
  reservingId: string | undefined;
}

export interface ChangePlan<C extends PlannableChange = PlannableChange> {
  rows: PlannedRow<C>[];
  events: PlannedEvent[];
  money: MoneyMove;
  /** The first change that records an intent (`submit`): the write refuses the batch while the job is cancelled. */
  intentId: string | undefined;
}

/**
 * States in which a row is some runner's (it sent the request, polls the task, downloads the answer).
 * A row has an owner only in one of them: anywhere else it is no one's, and an operator may decide it.
 */
export const HELD_STATES: readonly ItemState[] = ['submitting', 'submitted', 'running', 'succeeded'];
const HELD: ReadonlySet<ItemState> = new Set(HELD_STATES);

/** Whose a row in state `to` is after a change written by `runner`. */
export function ownerAfter(to: ItemState, runner: string | undefined): string | null {
  return HELD.has(to) ? (runner ?? null) : null;
}

/**
 * Events that send a row again: what its last attempt still holds booked (it may have been billed) is
 * carried by the row from then on, never released by the resend.
 */
export const RESEND_EVENTS: ReadonlySet<ItemEvent> = new Set<ItemEvent>(['resubmit', 'requeue']);

/** Whether the change records an intent: the request may leave once it is durable. */
export function isIntent(event: ItemEvent): boolean {
  return event === 'submit';
}

/**
 * Plans `changes` in order on the rows' heads. A row changed twice in one batch is judged on the state
 * (and the money) the earlier change left it with. Throws, before anything is written, on an unknown
 * item, a failed `expect` (StaleTransitionError) or an illegal transition (IllegalTransitionError).
 */
export function planChanges<C extends PlannableChange>(
  heads: ReadonlyMap<string, RowHead>,
  changes: readonly C[],
  context: PlanContext,
): ChangePlan<C> {
  const batch = new BatchPlan<C>(heads, context);
  for (const change of changes) {
    const row = batch.row(change.id);
    const from = row.state;
    if (change.expect !== undefined && from !== change.expect) {
      throw new StaleTransitionError(change.id, change.event, change.expect, from);
    }
    batch.step(change, row, transition(from, change.event), change.event, ownerAfter);
  }
  return batch.plan;
}

/** Fields patched without a move: the row keeps its state, and `note` is the event it logs. */
export interface NoteChange {
  id: string;
  note: string;
  patch: PlannableChange['patch'];
}

/**
 * Plans a note as planChanges plans a move (the same money rule and event), the row staying in its state
 * and keeping its owner (`owner` undefined): a note changes no one's hold on the row. Throws on an unknown item.
 */
export function planNote(heads: ReadonlyMap<string, RowHead>, note: NoteChange, context: PlanContext): NotePlan {
  const batch = new BatchPlan<PlannableChange>(heads, context);
  const row = batch.row(note.id);
  // The change's event is never read for a note: the money rule asks it only of resends.
  const change: PlannableChange = { id: note.id, event: 'progress', patch: note.patch };
  batch.step(change, row, row.state, note.note, () => undefined);
  return batch.plan;
}

/** A note's plan: one row (its owner left as it is) and one event. */
export type NotePlan = ChangePlan<PlannableChange>;

/** A batch being planned: the rows as the changes so far left them, and what the plan writes. */
class BatchPlan<C extends PlannableChange> {
  readonly plan: ChangePlan<C> = {
    rows: [],
    events: [],
    money: { reservedUsd: 0, actualUsd: 0, reservingId: undefined },
    intentId: undefined,
  };
  private readonly now = new Map<string, RowMoney & { state: ItemState }>();

  constructor(
    private readonly heads: ReadonlyMap<string, RowHead>,
    private readonly context: PlanContext,
  ) {}

  row(id: string): RowMoney & { state: ItemState } {
    let row = this.now.get(id);
    if (!row) {
      const head = this.heads.get(id);
      if (!head) throw new Error(`unknown item '${id}'`);
      row = {
        state: head.state,
        reservedUsd: head.reservedUsd,
        actualUsd: head.actualUsd,
        carriedUsd: head.carriedUsd ?? 0,
      };
      this.now.set(id, row);
    }
    return row;
  }

  step(
    change: C,
    row: RowMoney & { state: ItemState },
    to: ItemState,
    event: string,
    owner: (to: ItemState, runner: string | undefined) => string | null | undefined,
  ): void {
    const { plan, context } = this;
    const from = row.state;
    row.state = to;
    const before = { reservedUsd: row.reservedUsd, actualUsd: row.actualUsd ?? 0 };
    const stored = moveMoney(row, change);
    if (stored.rising) plan.money.reservingId ??= change.id;
    plan.money.reservedUsd += row.reservedUsd - before.reservedUsd;
    plan.money.actualUsd += (row.actualUsd ?? 0) - before.actualUsd;
    if (plan.intentId === undefined && isIntent(change.event) && event === change.event) plan.intentId = change.id;
    plan.rows.push({ change, from, to, owner: owner(to, context.runner), money: stored.written });
    const detail = change.detail ? JSON.stringify(change.detail) : null;
    plan.events.push({ itemId: change.id, at: context.now, event, from, to, detail });
  }
}

interface RowMoney {
  reservedUsd: number;
  actualUsd: number | null;
  carriedUsd: number;
}

/**
 * Applies one change's money to the row (in place), by the rule at the top of this file: a resend first
 * moves what the attempt holds booked into the carried booking; an attempt-level reservation is stored
 * on top of the carried booking. Returns the columns to write, and whether a new reservation rose (the
 * budget is asked then).
 */
function moveMoney(row: RowMoney, change: PlannableChange): { written: StoredMoney; rising: boolean } {
  const patch = change.patch ?? {};
  if (patch.carriedUsd !== undefined) {
    throw new Error(`item '${change.id}': the carried booking is the planner's alone; a change may not set it`);
  }
  const written: StoredMoney = {};
  if (RESEND_EVENTS.has(change.event) && change.notBilled !== true) {
    const held = roundUsd(row.reservedUsd - row.carriedUsd + (row.actualUsd ?? 0));
    if (held > 0) {
      row.carriedUsd = roundUsd(row.carriedUsd + held);
      row.reservedUsd = row.carriedUsd;
      row.actualUsd = null;
      Object.assign(written, { carriedUsd: row.carriedUsd, reservedUsd: row.reservedUsd, actualUsd: null });
    }
  }
  let rising = false;
  if (patch.reservedUsd !== undefined) {
    rising = patch.reservedUsd > roundUsd(row.reservedUsd - row.carriedUsd);
    row.reservedUsd = roundUsd(row.carriedUsd + patch.reservedUsd);
    written.reservedUsd = row.reservedUsd;
  }
  if (patch.actualUsd !== undefined) {
    row.actualUsd = patch.actualUsd;
    written.actualUsd = patch.actualUsd;
  }
  return { written, rising };
}

/**
 * The plan of a batch whose writer has not read the rows (one round trip): each row taken to be in the
 * state its change expects, which the write then checks. Every change must name one (`expect`), and no
 * row may be named twice. The money such a batch moves is known only at the write (what the rows held
 * then): `money` here is left out, and the write moves the job's totals by what each row's patched
 * reservation and charge differ from the row's. The rows' stored money is attempt-level here: the write
 * adds each row's carried booking to a reservation it stores. A resend needs the row's money and is
 * refused (plan it on the rows' heads).
 */
export function planOnExpected<C extends PlannableChange>(
  changes: readonly C[],
  context: PlanContext,
): Omit<ChangePlan<C>, 'money'> {
  const heads = new Map<string, RowHead>();
  for (const change of changes) {
    if (change.expect === undefined) {
      throw new Error(`item '${change.id}': a change planned on its expected state must name it`);
    }
    if (heads.has(change.id)) throw new Error(`item '${change.id}': named twice in a batch planned on expected states`);
    if (RESEND_EVENTS.has(change.event)) {
      throw new Error(`item '${change.id}': a '${change.event}' carries the row's booking and is planned on its head`);
    }
    heads.set(change.id, { state: change.expect, reservedUsd: 0, actualUsd: 0 });
  }
  const { rows, events, intentId } = planChanges(heads, changes, context);
  return { rows, events, intentId };
}

/** Whether the job's totals after a move pass its budget (a nano-dollar of float noise allowed). */
export function overBudget(
  totals: { reservedUsd: number; actualUsd: number },
  budgetUsd: number | null | undefined,
): boolean {
  return budgetUsd != null && totals.reservedUsd + totals.actualUsd > budgetUsd + 1e-9;
}
