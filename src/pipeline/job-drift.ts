// The group ratio a runner scales by: the largest its account was seen charged above the pricing table, by
// this runner or by any run of the job. The journal keeps what each saw (recordDrift); a run starts from it,
// runners sharing a job take each other's with every look at the job's money, and afresh after a text answer
// is booked (its usage carries no price: only the ratio says what the gateway billed for it): a higher one
// corrects the booking.
import { textCorrection, type TextBooking } from '../core/charge-check.js';
import { roundUsd } from '../core/money.js';
import { driftInForce, type SeenDrift } from '../core/seen-drift.js';
import { log, type LaneContext } from './context.js';
import { priceDriftLine, type DriftWitness } from './price-drift.js';

/** Takes the ratios the journal holds: a new high scales every later reservation and is said once. */
export function adoptDrifts(ctx: LaneContext, seen: readonly SeenDrift[], witness: DriftWitness): void {
  const inForce = driftInForce(seen, ctx.account, ctx.pricing);
  if (inForce && ctx.budget.observeDrift(inForce.ratio))
    log(
      ctx,
      priceDriftLine(
        { id: inForce.seen.itemId, model: inForce.seen.model },
        inForce.tableUsd,
        inForce.seen.gatewayChargeUsd,
        inForce.ratio,
        witness,
        ctx.voice,
      ),
    );
}

/**
 * A text answer is booked at once at the ratio this runner knows; once a read of the job's ratios begun after the
 * booking is in, a higher ratio than it was booked at (another runner saw the gateway charge above the table)
 * raises its charge, with the job's money, to what it would have been booked at. So what any runner recorded
 * before the answer arrived is in its final charge, and the answer is durable without waiting for the read.
 */
export async function recheckText(ctx: LaneContext, reads: DriftReads, id: string, booked: TextBooking): Promise<void> {
  await reads.fresh();
  const correction = textCorrection(booked, ctx.budget.driftRatio);
  if (!correction) return;
  await ctx.journal.annotate(id, { actualUsd: correction.usd, lastError: { message: correction.note } }, 'ratio');
  ctx.budget.corrected(roundUsd(correction.usd - booked.usd));
}

/**
 * How often at most a runner reads the job's ratios for its bookings' checks. A read is a round trip that cost the
 * database about as much as the rest of a chat row (BENCHMARKS.md, `pg-ceiling`); the bookings made between two
 * reads share the next.
 */
export const DRIFT_READ_SPACING_MS = 250;

/**
 * Reads of the job's ratios for runners sharing a job, one at a time: a caller waits for a read begun after
 * its call (what another runner recorded before it is seen), and callers arriving together share one; reads
 * begin at least `spacingMs` apart. A read that fails leaves the ratio as it was: the journal's trouble shows in
 * the write that follows.
 */
export class DriftReads {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private lastStartedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: LaneContext,
    private readonly spacingMs = DRIFT_READ_SPACING_MS,
  ) {}

  fresh(): Promise<void> {
    if (!this.ctx.journal.capabilities.sharedRunners) return Promise.resolve();
    this.queued ??= (this.running ?? Promise.resolve()).then(() => {
      const wait = this.spacingMs > 0 ? this.lastStartedAt + this.spacingMs - this.ctx.clock.now() : 0;
      return wait > 0 ? this.ctx.clock.sleep(wait).then(() => this.start()) : this.start();
    });
    return this.queued;
  }

  private start(): Promise<void> {
    this.queued = undefined;
    if (this.spacingMs > 0) this.lastStartedAt = this.ctx.clock.now();
    const read = this.read();
    this.running = read;
    return read;
  }

  private async read(): Promise<void> {
    try {
      adoptDrifts(this.ctx, await this.ctx.journal.drifts(), 'another runner');
    } catch {
      // booked at the ratio known: see above
    }
  }
}
