// The submission lane: claims pending items in manifest order under the budget, journals each
// attempt's intent before its request leaves, and records every outcome.
import PQueue from 'p-queue';
import { deferralReason } from '../../core/job-budget.js';
import { backoffDelay, DEFAULT_BACKOFF } from '../../core/retry.js';
import { snapshotPrice } from '../../core/settlement.js';
import type { SendOutcome } from '../../gateway/client.js';
import { GatewayTransportError } from '../../gateway/errors.js';
import {
  BudgetExceededError,
  JobCancelledError,
  LockLostError,
  staleAfterMs,
  type Change,
  type Item,
  type JobCancel,
} from '../../journal/index.js';
import { cancelledError } from '../stops/cancel-watch.js';
import { changedElsewhere } from './changed-elsewhere.js';
import { unrecordedOutcome, type UnrecordedOutcome } from '../ending/unrecorded.js';
import { log, type LaneContext } from '../context.js';
import { planOutcome, type FollowUp, type OutcomePlan } from './outcome.js';
import type { TextBooking } from '../../core/charge-check.js';
import { unpricedRowError } from './held-row-prices.js';
import { reservationFor, type Reservation } from '../../core/reservation.js';
import { ModelGate } from './model-gate.js';
import { ModelLanes } from './model-lanes.js';
import type { Pacer } from '../pacing/request-pacers.js';
import { bothPaced, rateWindow, SendPacer, type PacedSend } from '../pacing/send-pacer.js';
import { slotTraceFromEnv, writeSlotTrace, type SlotCycle } from './slot-trace.js';

export interface SubmitterHooks {
  accepted(item: Item): void;
  completed(item: Item): void;
  /** Every pending item has been claimed; only requests in flight (and their retries) remain. */
  claimedAll?(): void;
  /**
   * The gateway accepted a task, or answered, and the journal refused it (this runner lost its standing): it must not
   * be lost.
   */
  unrecorded?(outcome: UnrecordedOutcome): void;
  /**
   * The journal refused an intent over the job's budget: the job's money is read again before the row waits for
   * headroom.
   */
  budgetRefused?(): Promise<void>;
  /**
   * Asked before each item is claimed and before each intent is written; may stop submissions (the journal's file is
   * gone). Must be cheap.
   */
  beforeSubmit?(): void;
  /**
   * A text answer's booking is durable: it was booked at the group ratio this runner knew (its usage carries no
   * price); the hook checks it against the job's ratios read afresh and corrects it upwards. Waited for outside the
   * lane's slot, before the run ends.
   */
  bookedText?(id: string, booked: TextBooking): Promise<void>;
}

/** A submission cut on the wire by this runner's abort (the grace after a stop ran out): it is uncertain. */
const cutByThisRunner = (outcome: SendOutcome): boolean =>
  outcome.kind === 'ambiguous' &&
  outcome.error instanceof GatewayTransportError &&
  outcome.error.code === 'GBATCH_ABORTED';

/** A row that left its lane slot to wait for headroom: the attempt it resumes at, and the last this run allows it. */
interface Resume {
  item: Item;
  attempt: number;
  lastAttempt: number;
}

export type SubmitStopReason = 'balance' | 'budget' | 'auth' | 'cancelled' | undefined;

const PAGE = 256;

export class Submitter {
  private readonly queue: PQueue;
  private stopReason: SubmitStopReason;
  /** Rows the budget held back, each with why at the moment it did not fit. */
  private readonly overBudget: Array<{ item: Item; reason: string }> = [];
  private exhausted = 0;
  private cut = 0;
  private readonly stopped: Promise<void>;
  /** Outcome writes still on their way to disk (their follow-ups run once each is durable). */
  private readonly settling = new Set<Promise<void>>();
  private failure: unknown;
  private readonly pacer: Pacer | undefined;
  /** A request leaves only while this runner's standing was confirmed this recently: half a lease. */
  private readonly freshForMs = staleAfterMs() / 2;
  /** The job's cancellation, once this runner saw it (the journal, or its refusal of an intent). */
  private cancel: JobCancel | undefined;
  /** --model-limit: rows of a model at its limit wait aside; each model's rate also held at the wire. */
  private readonly modelGate: ModelGate | undefined;
  private readonly modelLanes: ModelLanes | undefined;
  private readonly modelPacers = new Map<string, SendPacer>();
  /** Each row's way through the lane, from its first queueing to its last attempt (waits outside it included). */
  private readonly flows = new Set<Promise<void>>();
  /** Intents the journal refused over the job's budget (another runner reserved first, or the budget was lowered). */
  private refusals = 0;
  /** GBATCH_SLOT_TRACE: where each slot's time goes between an answer and its next request (a diagnostic). */
  private readonly slotTrace = slotTraceFromEnv();

  constructor(
    private readonly ctx: LaneContext<
      | 'budgetMayOverrun'
      | 'concurrency'
      | 'rpm'
      | 'maxSubmitAttempts'
      | 'modelLimits'
      | 'sendSlots'
      | 'slotOwner'
      | 'retryCancelled'
    >,
    private readonly hooks: SubmitterHooks,
  ) {
    this.stopped = abortPromise(ctx.submitStop.signal);
    const { concurrency, rpm } = ctx.settings;
    // --rpm twice: the queue starts work at the pace, so items wait as pending rather than after their
    // intent; the pacer holds each request itself to it, whatever the time from start to wire.
    const window = rpm ? rateWindow(rpm) : undefined;
    this.queue = new PQueue({ concurrency, ...window });
    this.pacer = ctx.pacers?.submissions;
    const limits = ctx.settings.modelLimits;
    if (limits && limits.size > 0) {
      this.modelGate = new ModelGate(limits, ctx.clock);
      this.modelLanes = new ModelLanes(
        this.modelGate,
        ctx.clock,
        (item, release) => this.handOver(item, release),
        ctx.submitStop.signal,
      );
      for (const [model, limit] of limits)
        if (limit.rpm) this.modelPacers.set(model, new SendPacer(rateWindow(limit.rpm), ctx.clock));
    }
  }

  get reason(): SubmitStopReason {
    return this.stopReason;
  }

  /** Items left pending because their retryable failures used up the attempts of this run. */
  get exhaustedCount(): number {
    return this.exhausted;
  }

  /** Intents the journal refused over the job's budget: each a transaction that reserved nothing. */
  get budgetRefusals(): number {
    return this.refusals;
  }

  /** Submissions cut on the wire (the grace after a stop ran out): each is uncertain. */
  get cutCount(): number {
    return this.cut;
  }

  async run(): Promise<void> {
    const { ctx } = this;
    let after = 0;
    outer: for (;;) {
      // Among runners sharing a job, a claim is about what this runner can send soon: turns, not hoards.
      const claimStarted = performance.now();
      const page = await ctx.journal.claimPending(
        ctx.journal.capabilities.sharedRunners ? Math.min(PAGE, ctx.settings.concurrency * 2) : PAGE,
        after,
      );
      this.slotTrace?.trace.claimed(performance.now() - claimStarted);
      if (page.length === 0) break;
      for (const item of page) {
        after = item.seq;
        this.hooks.beforeSubmit?.();
        if (!ctx.submitGate.allows()) break outer;
        await this.queue.onSizeLessThan(ctx.settings.concurrency);
        if (this.modelLanes && this.modelGate?.limits(item.model)) {
          await this.modelLanes.room();
          this.modelLanes.offer(item);
          continue;
        }
        const reservation = await this.reserve(item);
        if (!reservation) continue;
        this.track(this.enqueue(item, reservation));
      }
    }
    await this.modelLanes?.drained();
    this.hooks.claimedAll?.();
    while (this.flows.size > 0) await Promise.allSettled([...this.flows]);
    await this.queue.onIdle();
    while (this.settling.size > 0) await Promise.allSettled([...this.settling]);
    if (this.slotTrace) writeSlotTrace(this.slotTrace.file, this.slotTrace.trace);
    if (this.failure !== undefined) throw this.failure;
    await this.deferLeftovers();
  }

  /**
   * A row of a limited model whose turn has come: reserved and queued as any other; `release` frees its model's slot.
   */
  private async handOver(item: Item, release: () => void): Promise<void> {
    try {
      const reservation = await this.reserve(item);
      if (!reservation) return release();
      this.track(this.enqueue(item, reservation).finally(release));
    } catch (err) {
      release();
      this.fail(err);
    }
  }

  /**
   * Queues the row in the lane. A row that must wait for headroom (its intent refused, or its retry not fitting) leaves
   * its slot and waits outside the lane, then queues again: a wait never holds a slot, so the rows queued behind it
   * go ahead, and their settling may free the headroom it waits for.
   */
  private async enqueue(item: Item, reservation: Reservation, resume?: Resume): Promise<void> {
    const next = await this.queue.add(() => this.submit(item, reservation, resume));
    if (!next) return;
    const again = await this.reserve(next.item);
    if (again) await this.enqueue(next.item, again, next);
  }

  private track(flow: Promise<void>): void {
    this.keep(
      this.flows,
      flow.catch((err: unknown) => this.fail(err)),
    );
  }

  /** A bug (an illegal transition) or a journal that cannot be written stops every lane and ends the run with it. */
  private fail(err: unknown): void {
    this.failure ??= err;
    this.ctx.laneFailed(err);
  }

  /**
   * Reserves the row's bound (the estimate under --budget-may-overrun), waiting for headroom while
   * in-flight work may still free some; undefined when it cannot fit (the row noted for deferral) or
   * the run stopped meanwhile (the row left pending). Never called from a slot of the lane: see enqueue().
   */
  private async reserve(item: Item): Promise<Reservation | undefined> {
    const { budget, submitStop } = this.ctx;
    const unpriced = unpricedRowError(item, this.ctx.pricing);
    if (unpriced) {
      // No price (it became sendable after the start's check): the row stays pending, and the run stops
      // sending and ends on this line (exit 2).
      this.fail(unpriced);
      return undefined;
    }
    for (;;) {
      // Taken again after each wait: the gateway may have been seen charging above the table meanwhile.
      const reservation = this.reserveNow(item);
      if (typeof reservation !== 'number') return reservation;
      // A stop (a signal, the deadline, a 402) while waiting for headroom is not the budget's doing:
      // the row stays pending for the next run (a 402 defers it with the rest, below).
      if (submitStop.signal.aborted) return undefined;
      if (!budget.hasLive()) {
        this.overBudget.push({ item, reason: deferralReason(budget.budgetUsd ?? 0, budget.current(), reservation) });
        return undefined;
      }
      await Promise.race([budget.changed(), this.stopped]);
    }
  }

  /** The row's reservation if it fits now; else what it needs (USD). */
  private reserveNow(item: Item): Reservation | number {
    const { budget, settings } = this.ctx;
    const mode = { budgeted: budget.budgetUsd !== undefined, mayOverrun: settings.budgetMayOverrun === true };
    const reservation = reservationFor(item, this.ctx.pricing, { ...mode, driftRatio: budget.driftRatio });
    return budget.tryReserve(reservation.usd) ? reservation : reservation.usd;
  }

  /** Under shared send slots (several runs in one process), the row waits for a slot before its intent. */
  private async submit(claimed: Item, claimedReservation: Reservation, resume?: Resume): Promise<Resume | undefined> {
    const slots = this.ctx.settings.sendSlots;
    if (!slots) return this.submitHeld(claimed, claimedReservation, resume);
    let release: () => void;
    try {
      release = await slots.acquire(this.ctx.settings.slotOwner ?? '', this.ctx.submitStop.signal);
    } catch {
      // The run stopped while the row waited: it never left, and stays pending for a later run.
      this.ctx.budget.unsent(claimedReservation.usd);
      return undefined;
    }
    try {
      return await this.submitHeld(claimed, claimedReservation, resume);
    } finally {
      release();
    }
  }

  /** The row's attempts in its slot; a Resume when it must wait for headroom outside the lane (see enqueue()). */
  private async submitHeld(
    claimed: Item,
    claimedReservation: Reservation,
    resume?: Resume,
  ): Promise<Resume | undefined> {
    const { ctx } = this;
    this.hooks.beforeSubmit?.();
    let cycle = resume ? undefined : this.slotTrace?.trace.started();
    let item = claimed;
    let reservation = claimedReservation;
    // --max-attempts counts this run's attempts: a row left pending by an earlier run (or sent again by
    // `retry`) gets a fresh allowance, while its attempt numbers keep counting in the journal.
    const lastAttempt = resume?.lastAttempt ?? claimed.attempts + ctx.settings.maxSubmitAttempts;
    for (let attempt = resume?.attempt ?? claimed.attempts + 1; ; attempt++) {
      if (!ctx.submitGate.allows()) {
        // Queued (or waiting to retry) when the run stopped (a 402, a signal, the deadline, a dead
        // gateway): it never leaves. It stays pending (a 402 defers it below) and a later run sends it.
        ctx.budget.unsent(reservation.usd);
        return undefined;
      }
      const intent = await this.writeIntent(item, attempt, reservation);
      if (intent === 'refused') return undefined;
      if (intent === 'no-headroom') {
        // Another runner of the job reserved the headroom first: this row waits for it as for this
        // runner's own, while anything of the job is in flight; deferred only when nothing may settle.
        await this.hooks.budgetRefused?.();
        const again = this.reserveNow(item);
        if (typeof again === 'number') return { item, attempt, lastAttempt }; // the same attempt, not yet sent
        reservation = again;
        attempt--; // the same attempt, not yet sent
        continue;
      }
      item = intent;
      cycle?.mark('intent');
      ctx.events.emit('transition', item, 'pending');
      const outcome = await this.send(item, attempt, reservation.request, cycle);
      const answeredAt = this.slotTrace?.trace.answerIn();
      cycle = undefined; // a retry in the same slot is not a slot's cycle
      if (cutByThisRunner(outcome)) this.cut++;
      const plan = planOutcome(item, outcome, attempt, lastAttempt, ctx.budget.driftRatio);
      this.moveMoney(plan);
      const next = plan.followUp;
      this.stopIfDue(next);
      const written = ctx.commits.write(plan.change, item);
      const unrecorded = unrecordedOutcome(plan.change, attempt);
      if (unrecorded) {
        written.catch((err: unknown) => {
          if (err instanceof LockLostError) this.hooks.unrecorded?.(unrecorded);
        });
      }
      if (plan.textBooking && this.hooks.bookedText)
        this.checkBooking(written, item.id, plan.textBooking, this.hooks.bookedText);
      if (next.kind !== 'retry') {
        // The outcome's follow-ups wait for it to be durable; the lane's slot does not: the next
        // request depends on nothing here but the budget, which moved above.
        this.settle(
          written.then((updated) => this.followUp(updated, next, attempt)),
          plan.change,
        );
        if (answeredAt !== undefined) this.slotTrace?.trace.answered(answeredAt);
        return undefined;
      }
      item = await written;
      ctx.events.emit('transition', item, 'submitting');
      try {
        await ctx.clock.sleep(next.delayMs, ctx.submitStop.signal);
      } catch {
        return undefined; // stopping: the item stays pending and a later run sends it
      }
      const again = this.reserveNow(item);
      if (typeof again === 'number') return { item, attempt: attempt + 1, lastAttempt };
      reservation = again;
    }
  }

  /**
   * Once the booking is durable, its check (bookedText), outside the lane's slot; the run's drain waits for it. A
   * booking that failed is the settlement's to report, not the check's.
   */
  private checkBooking(
    written: Promise<Item>,
    id: string,
    booked: TextBooking,
    check: NonNullable<SubmitterHooks['bookedText']>,
  ): void {
    const checked = written.then(
      () => check(id, booked),
      () => undefined,
    );
    this.keep(
      this.settling,
      checked.catch((err: unknown) => this.fail(err)),
    );
  }

  /** Stops take effect at once, before the outcome is even written: no other request may leave. */
  private stopIfDue(next: FollowUp): void {
    if (next.kind === 'stop-balance')
      this.stopFor('balance', `the gateway's balance ran out (402): no further submissions`);
    else if (next.kind === 'stop-auth')
      this.stopFor('auth', 'the gateway refused the API key (401): no further submissions; check GATEWAY_API_KEY');
  }

  /**
   * The attempt's intent in the journal, its reservation with it; 'no-headroom' when the job's budget (other runners'
   * reservations) refused it.
   */
  private async writeIntent(
    item: Item,
    attempt: number,
    reservation: Reservation,
  ): Promise<Item | 'refused' | 'no-headroom'> {
    const { ctx } = this;
    try {
      const written = await ctx.commits.write(
        {
          id: item.id,
          event: 'submit',
          patch: {
            attempts: attempt,
            reservedUsd: reservation.usd,
            priceSnapshot: snapshotPrice(item.kind, item.model, ctx.pricing),
          },
          detail: {
            attempt,
            ...(reservation.outputCapAdded ? { outputCapAdded: reservation.outputCapAdded } : {}),
            ...(reservation.durationAdded ? { durationAdded: reservation.durationAdded } : {}),
          },
        },
        item,
        { urgent: true },
      );
      ctx.budget.recorded(reservation.usd);
      return written;
    } catch (err) {
      ctx.budget.unsent(reservation.usd); // never sent: its reservation goes back
      if (err instanceof JobCancelledError) {
        // Cancelled before this intent was written: the row never leaves; it is cancelled with the rest.
        this.jobCancelled(
          (await ctx.journal.jobCancel().catch(() => undefined)) ?? { at: ctx.clock.now(), reason: '' },
        );
        return 'refused';
      }
      if (err instanceof BudgetExceededError) {
        this.refusals++;
        return 'no-headroom';
      }
      if (!changedElsewhere(ctx, err)) throw err;
      return 'refused';
    }
  }

  private followUp(item: Item, next: FollowUp, attempt: number): void {
    this.ctx.events.emit('transition', item, 'submitting');
    if (next.kind === 'poll') this.hooks.accepted(item);
    else if (next.kind === 'results') this.hooks.completed(item);
    else if (next.kind === 'give-up') {
      this.exhausted++;
      log(this.ctx, this.ctx.voice.leftPending(item.id, attempt));
    }
  }

  /**
   * `answer`: the outcome being written; one the journal could not take is named with its task id, the last trace of
   * it.
   */
  private settle(work: Promise<void>, answer: Change): void {
    const tracked = work.catch((err: unknown) => {
      if (changedElsewhere(this.ctx, err)) return;
      if (answer.event === 'accept' || answer.event === 'complete') {
        const what =
          answer.event === 'accept'
            ? `was accepted as task ${String(answer.patch?.taskId)}`
            : 'was answered (and may be billed)';
        const { voice } = this.ctx;
        log(
          this.ctx,
          voice.uncertainRow(
            `${voice.item} '${answer.id}' ${what}, but ${voice.journal} could not record it: the row becomes uncertain`,
          ),
        );
      }
      this.fail(err);
    });
    this.keep(this.settling, tracked);
  }

  /** `work` held in `set` until it ends: the run's drain waits for each set. */
  private keep(set: Set<Promise<void>>, work: Promise<void>): void {
    const kept = work.finally(() => set.delete(kept));
    set.add(kept);
  }

  private async send(
    item: Item,
    attempt: number,
    request: Record<string, unknown>,
    cycle?: SlotCycle,
  ): Promise<SendOutcome> {
    let paced: PacedSend | undefined;
    try {
      paced = await this.pace(item.model);
      if (!this.ctx.submitGate.allows()) {
        // The intent is durable but the run stopped meanwhile (the deadline passed): the request never leaves.
        throw new GatewayTransportError(
          'GBATCH_ABORTED',
          false,
          'submission stopped before it left: the run is stopping',
        );
      }
      if (performance.now() - this.ctx.journal.membership.confirmedAt() >= this.freshForMs) {
        // Not heard from the journal for half a lease (this process was frozen, or the database is out of
        // reach): the row may be another runner's by now, so its request does not leave.
        throw new GatewayTransportError(
          'GBATCH_ABORTED',
          false,
          "submission held back: this runner's lease on the job is not confirmed",
        );
      }
      cycle?.mark('pacing');
      const onWire = cycle
        ? () => {
            paced?.onWire();
            cycle.mark('wire');
          }
        : paced?.onWire;
      const leftAt = this.ctx.clock.now();
      const outcome = await this.ctx.gateway.send(item.kind, request, attempt, {
        signal: (this.ctx.submitCut ?? this.ctx.hardStop).signal,
        unsent: this.ctx.submitStop.signal,
        ...(onWire ? { onWire } : {}),
      });
      this.ctx.exchanges?.record(this.ctx.clock.now() - leftAt);
      return outcome;
    } catch (err) {
      if (err instanceof GatewayTransportError && !err.mayHaveReached) {
        return { kind: 'retry', error: err, delayMs: backoffDelay(attempt, DEFAULT_BACKOFF, this.ctx.random) };
      }
      // Not the network's doing: a bug. Whether the request left is unknown, so the item is uncertain,
      // and nothing more is sent: the run stops as an internal error instead of repeating it per row.
      if (!(err instanceof GatewayTransportError)) this.fail(err);
      return { kind: 'ambiguous', error: err instanceof Error ? err : new Error(String(err)) };
    } finally {
      paced?.done();
    }
  }

  /** A stop while waiting for the pace means the request never leaves: the same as a refused connection. */
  private async pace(model: string): Promise<PacedSend | undefined> {
    const signal = this.ctx.submitStop.signal;
    let own: PacedSend | undefined;
    try {
      // The model's own rate first, so no slot of the account's pace is held while the model waits.
      own = await this.modelPacers.get(model)?.acquire(signal);
      const paced = await this.pacer?.acquire(signal);
      return own && paced ? bothPaced(own, paced) : (own ?? paced);
    } catch (err) {
      own?.done();
      throw new GatewayTransportError(
        'GBATCH_ABORTED',
        false,
        'submission stopped while waiting for --rpm or --model-limit',
        { cause: err },
      );
    }
  }

  private moveMoney(plan: OutcomePlan): void {
    const { budget } = this.ctx;
    if ('release' in plan.money) budget.release(plan.money.release);
    else if ('settle' in plan.money) budget.settle(plan.money.settle.reserved, plan.money.settle.actual);
    else if (plan.change.event === 'lose') budget.hold();
  }

  private stopFor(reason: 'balance' | 'budget' | 'auth', message: string): void {
    if (this.stopReason === 'balance' || this.stopReason === 'auth') return;
    this.stopReason = reason;
    log(this.ctx, message);
    this.ctx.submitStop.abort(reason);
    // The balance is the account's: every runner of the job stops sending, not only this one.
    if (reason === 'balance' && this.ctx.journal.capabilities.sharedRunners) {
      this.ctx.journal.coordination.stopSubmissions('balance').catch((err: unknown) => {
        log(this.ctx, `could not tell the job's other runners that the balance ran out: ${(err as Error).message}`);
      });
    }
  }

  /**
   * The operator cancelled the job (`gbatch cancel`): nothing more leaves; pending rows are cancelled when the lane
   * ends.
   */
  jobCancelled(cancel: JobCancel): void {
    if (this.cancel) return;
    this.cancel = cancel;
    if (this.stopReason !== 'auth') this.stopReason = 'cancelled';
    log(this.ctx, this.ctx.voice.jobCancelled(cancel, this.ctx.settings.retryCancelled));
    this.ctx.submitStop.abort('cancelled');
  }

  /** Another runner of the job (or, `who` says, another run of the process) saw the 402: this one stops too. */
  balanceRanOutElsewhere(who = 'another runner of this job'): void {
    if (this.stopReason === 'balance' || this.stopReason === 'auth') return;
    this.stopReason = 'balance';
    log(this.ctx, `${who} saw the gateway's balance run out (402): no further submissions`);
    this.ctx.submitStop.abort('balance');
  }

  /**
   * On a cancelled job, the rows held back, every deferred row and every pending row (back from a retry, or new) become
   * cancelled.
   */
  private async cancelLeftovers(cancel: JobCancel): Promise<void> {
    const { ctx } = this;
    const change = (item: Item) => ({
      id: item.id,
      event: 'cancel' as const,
      patch: { reservedUsd: 0, lastError: cancelledError(cancel) },
      detail: { by: 'runner', reason: cancel.reason },
      expect: item.state,
    });
    const seen = new Set<string>();
    const writes: Array<Promise<Item>> = [];
    const cancelOne = (item: Item): void => {
      if (seen.has(item.id)) return;
      seen.add(item.id);
      writes.push(ctx.commits.write(change(item)));
    };
    for (const { item } of this.overBudget.splice(0)) cancelOne(item);
    // Deferred by this run before it saw the cancellation (after the command had cancelled the rest).
    for (const item of await ctx.journal.list(['deferred'])) cancelOne(item);
    for (let after = 0; ;) {
      const page = await ctx.journal.claimPending(PAGE, after);
      if (page.length === 0) break;
      after = page[page.length - 1]!.seq;
      for (const item of page) cancelOne(item);
    }
    await Promise.all(
      writes.map((write) =>
        write.catch((err: unknown) => {
          if (!changedElsewhere(ctx, err)) throw err;
        }),
      ),
    );
  }

  /** Rows the budget or the balance held back become `deferred`: a later run sends them. */
  private async deferLeftovers(): Promise<void> {
    const { ctx } = this;
    if (this.cancel) return this.cancelLeftovers(this.cancel);
    const held = this.overBudget.splice(0); // a later pass of the same run must not defer them again
    const writes = held.map(({ item, reason }) =>
      ctx.commits
        .write({
          id: item.id,
          event: 'defer',
          patch: { lastError: { message: `deferred by --budget: ${reason}` } },
          detail: { reason: 'budget' },
          expect: item.state,
        })
        .catch((err: unknown) => {
          if (!changedElsewhere(ctx, err)) throw err;
        }),
    );
    if (held.length > 0 && !this.stopReason) {
      this.stopReason = 'budget';
      log(ctx, ctx.voice.deferred(held.length, held[0]!.item.id, held[0]!.reason));
    }
    await Promise.all(writes.splice(0));
    if (this.stopReason === 'balance') {
      let after = 0;
      for (;;) {
        // Claimed first: runners sharing the job defer each row once, not all of them each.
        const page = await ctx.journal.claimPending(PAGE, after);
        if (page.length === 0) break;
        after = page[page.length - 1]!.seq;
        for (const item of page) {
          writes.push(
            ctx.commits
              .write({
                id: item.id,
                event: 'defer',
                patch: { lastError: { message: "deferred: the gateway's balance ran out (402)" } },
                detail: { reason: 'balance' },
                expect: 'pending',
              })
              .catch((err: unknown) => {
                if (!changedElsewhere(ctx, err)) throw err;
              }),
          );
        }
        await Promise.all(writes.splice(0));
      }
    }
    await Promise.all(writes);
  }
}

function abortPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
