// Keeps a run's snapshot up to date from the lanes' own events (transitions, stored answers), so a
// redraw four times a second costs a few map lookups, not a count over the journal; the counts are
// read back from the journal every few seconds to take in what no event reports (deferrals at the
// end, other runners' rows). Emits `snapshot` for the live view and `progress` as before.
import { roundUsd } from '../../core/money.js';
import type { ItemState } from '../../core/states.js';
import type { SpendState } from '../../core/budget.js';
import type { Item, ItemError, JournalReports, JournalRunReads } from '../../journal/index.js';
import type { RunContext } from '../context.js';
import { causeOf, ErrorGroups, laneCauseOf, returnOutcome } from '../../core/error-groups.js';
import { RateRing } from './rate-ring.js';
import { phaseOf, quantile, SNAPSHOT_VERSION, type KindMoney, type RunSnapshot } from '../../core/run-snapshot.js';

/** Figures only the lanes know. */
export interface LaneProbe {
  polls(): number;
  downloads(): { in_flight: number; queued: number; failed: number };
}

export interface MonitorOptions {
  job: string;
  /** How often the counts are read back from the journal and `progress` is emitted. */
  progressIntervalMs: number;
  /** How often `snapshot` is emitted; 0: never (nobody watches, so no estimate sums are read either). */
  snapshotIntervalMs: number;
}

const MAX_DURATIONS = 512;

/** The run as the monitor sees it: it only reads the journal. */
export type MonitorContext = Omit<RunContext, 'journal'> & { journal: JournalRunReads & JournalReports };

export class RunMonitor {
  private counts = {} as Record<ItemState, number>;
  private readonly startedAt: number;
  private readonly finishedRing = new RateRing();
  private readonly sentRing = new RateRing();
  private readonly errors = new ErrorGroups();
  /** Video tasks in flight: when each was accepted (or, adopted from an earlier run, last submitted). */
  private readonly acceptedAt = new Map<string, number>();
  private readonly durations: number[] = [];
  private durationNext = 0;
  private videoToSend = 0;
  private sent = 0;
  private retries = 0;
  private downloaded = 0;
  private byKind: { text: KindMoney; video: KindMoney } | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private reading = false;
  private final = false;
  private finalSpend: SpendState | undefined;

  constructor(
    private readonly ctx: MonitorContext,
    private readonly probe: LaneProbe,
    private readonly options: MonitorOptions,
  ) {
    this.startedAt = ctx.clock.now();
  }

  async start(): Promise<void> {
    const { ctx, options } = this;
    this.counts = await ctx.journal.counts();
    ctx.events.on('transition', this.onTransition);
    ctx.events.on('stored', this.onStored);
    ctx.events.on('laneError', this.onLaneError);
    const resync = setInterval(() => this.resync(), options.progressIntervalMs);
    resync.unref();
    this.timers.push(resync);
    if (options.snapshotIntervalMs <= 0) return;
    // Every video of the job still to send (on a shared journal, pending rows are nobody's until claimed).
    for await (const _ of ctx.journal.iterate({ states: ['pending', 'submitting'], kinds: ['video'] }))
      this.videoToSend++;
    const byKind = { text: emptyMoney(), video: emptyMoney() };
    for (const group of (await ctx.journal.reportSums()).groups) {
      const kind = byKind[group.model in ctx.pricing.video ? 'video' : 'text'];
      kind.estimate_usd += group.estimated ?? 0;
      kind.settled_estimate_usd += group.settled_estimated ?? 0;
      kind.settled_actual_usd += group.actual ?? 0;
    }
    this.byKind = byKind;
    void this.adoptInFlight();
    const tick = setInterval(() => this.emitSnapshot(), options.snapshotIntervalMs);
    tick.unref();
    this.timers.push(tick);
    this.emitSnapshot();
  }

  /** The last snapshot, with the journal's final counts and money (the job's: other runners' too). */
  finish(counts: Record<ItemState, number>, spend?: SpendState): void {
    this.counts = { ...counts };
    if (spend) this.finalSpend = { ...spend };
    this.final = true;
    if (this.options.snapshotIntervalMs > 0) this.emitSnapshot();
    this.stop();
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.ctx.events.off('transition', this.onTransition);
    this.ctx.events.off('stored', this.onStored);
    this.ctx.events.off('laneError', this.onLaneError);
  }

  snapshot(): RunSnapshot {
    const { ctx } = this;
    const now = ctx.clock.now();
    const counts = { ...this.counts };
    const downloads = this.probe.downloads();
    const finished = this.finishedRing.recent(now, this.startedAt);
    const sent = this.sentRing.recent(now, this.startedAt);
    let youngest: number | undefined;
    let oldest: number | undefined;
    for (const at of this.acceptedAt.values()) {
      if (youngest === undefined || at > youngest) youngest = at;
      if (oldest === undefined || at < oldest) oldest = at;
    }
    const sorted = [...this.durations].sort((a, b) => a - b);
    const seconds = (ms: number | null | undefined): number | null =>
      ms === null || ms === undefined ? null : Math.max(0, ms) / 1000;
    const spend = this.finalSpend ?? ctx.budget.committed();
    const pausedUntil = ctx.gateway.pausedUntil();
    return {
      type: 'snapshot',
      version: SNAPSHOT_VERSION,
      job: this.options.job,
      phase: phaseOf({
        counts,
        downloadsOpen: downloads.in_flight + downloads.queued,
        final: this.final,
        submitStopped: ctx.submitStop.signal.aborted,
        stopping: ctx.stop.signal.aborted,
      }),
      started_at: this.startedAt,
      now,
      total: Object.values(counts).reduce((a, b) => a + b, 0),
      counts,
      lanes: {
        submit: {
          queued: counts.pending,
          in_flight: counts.submitting,
          done: this.sent,
          retries: this.retries,
          waiting_for_budget: ctx.budget.hasWaiters(),
        },
        poll: { tasks: counts.submitted + counts.running, polls: this.probe.polls() },
        download: {
          in_flight: downloads.in_flight,
          queued: downloads.queued,
          done: this.downloaded,
          failed: downloads.failed,
        },
      },
      recent: { window_s: Math.round(finished.windowMs / 100) / 10, finished: finished.count, sent: sent.count },
      tasks: {
        to_send: this.videoToSend,
        in_flight: counts.submitted + counts.running,
        youngest_age_s: youngest === undefined ? null : seconds(now - youngest),
        oldest_age_s: oldest === undefined ? null : seconds(now - oldest),
        durations: {
          count: sorted.length,
          p50_s: seconds(quantile(sorted, 0.5)),
          p90_s: seconds(quantile(sorted, 0.9)),
          max_s: seconds(sorted[sorted.length - 1]),
        },
      },
      money: {
        actual_usd: spend.actualUsd,
        reserved_usd: spend.reservedUsd,
        budget_usd: ctx.budget.budgetUsd ?? null,
        by_kind: this.byKind && { text: rounded(this.byKind.text), video: rounded(this.byKind.video) },
      },
      paused_until: pausedUntil > now ? pausedUntil : null,
      errors: this.errors.list(),
    };
  }

  private emitSnapshot(): void {
    this.ctx.events.emit('snapshot', this.snapshot());
  }

  /** Counts as the journal holds them (other runners' rows, deferrals), and the `progress` event. */
  private resync(): void {
    if (this.reading) return;
    this.reading = true;
    const { ctx } = this;
    ctx.journal
      .counts()
      .then(
        (counts) => {
          if (this.final) return;
          this.counts = counts;
          ctx.events.emit('progress', {
            counts,
            spend: ctx.budget.committed(),
            // The job's budget as this run last read it: another run of the job may have changed it.
            budgetUsd: ctx.budget.budgetUsd,
            pausedUntil: ctx.gateway.pausedUntil(),
          });
        },
        () => undefined,
      ) // a missed read is harmless; the next tick tries again
      .finally(() => {
        this.reading = false;
      });
  }

  /** Tasks an earlier run left in flight: their age counts from their last submission. */
  private async adoptInFlight(): Promise<void> {
    try {
      const ids: string[] = [];
      for await (const item of this.ctx.journal.iterate({ states: ['submitted', 'running'], mine: true }))
        ids.push(item.id);
      if (ids.length === 0) return;
      for (const [id, at] of await this.ctx.journal.lastSubmitTimes(ids)) {
        if (!this.acceptedAt.has(id) && !this.final) this.acceptedAt.set(id, at);
      }
    } catch {
      // ages are a nicety of the view: without them, the ETA waits for the first task to finish
    }
  }

  private readonly onStored = (ids: readonly string[]): void => {
    this.move('succeeded', 'downloaded', ids.length);
  };

  private readonly onLaneError = (lane: 'poll' | 'download', error: ItemError): void => {
    this.errors.add(laneCauseOf(lane, error), error.message, this.ctx.clock.now());
  };

  private readonly onTransition = (item: Item, from: ItemState | undefined): void => {
    const now = this.ctx.clock.now();
    const to = item.state;
    if (from !== undefined) this.move(from, to, 1);
    else this.counts[to]++;
    if (from === 'submitting') {
      if (to === 'pending') {
        if (returnOutcome(item.lastError) === 'retried') this.retries++;
      } else {
        if (item.kind === 'video') this.videoToSend = Math.max(0, this.videoToSend - 1);
        this.sent++;
        this.sentRing.add(now);
      }
    }
    if (isFinish(item, from)) this.finishedRing.add(now);
    if (to === 'submitted') this.acceptedAt.set(item.id, now);
    if ((from === 'submitted' || from === 'running') && to !== 'running') {
      const acceptedAt = this.acceptedAt.get(item.id);
      this.acceptedAt.delete(item.id);
      if (acceptedAt !== undefined && to === 'succeeded') this.recordDuration(now - acceptedAt);
    }
    if (from === 'succeeded' && to === 'downloaded') this.downloaded++;
    if (
      item.actualUsd !== null &&
      (to === 'succeeded' || to === 'failed') &&
      (from === 'submitting' || from === 'submitted' || from === 'running')
    ) {
      const kind = this.byKind?.[item.kind === 'video' ? 'video' : 'text'];
      if (kind) {
        kind.settled_estimate_usd += item.estimateUsd;
        kind.settled_actual_usd += item.actualUsd;
      }
    }
    // A refused row is never billed: it leaves the estimate still to spend.
    if (to === 'rejected' && this.byKind)
      this.byKind[item.kind === 'video' ? 'video' : 'text'].estimate_usd -= item.estimateUsd;
    const cause = causeOf(from, to, item.lastError);
    if (cause) this.errors.add(cause, item.lastError!.message, now);
  };

  /**
   * Never more rows than the view holds in `from`: a move it cannot take from there is one the journal's counts
   * already hold (read while it committed, or another runner's row stored here); applying it again would count
   * the row twice. The total stays the journal's, and the next read puts the states right.
   */
  private move(from: ItemState, to: ItemState, n: number): void {
    const moved = Math.min(n, this.counts[from]);
    this.counts[from] -= moved;
    this.counts[to] += moved;
  }

  private recordDuration(ms: number): void {
    if (this.durations.length < MAX_DURATIONS) this.durations.push(ms);
    else this.durations[this.durationNext] = ms;
    this.durationNext = (this.durationNext + 1) % MAX_DURATIONS;
  }
}

function rounded(m: KindMoney): KindMoney {
  return {
    estimate_usd: roundUsd(m.estimate_usd),
    settled_estimate_usd: roundUsd(m.settled_estimate_usd),
    settled_actual_usd: roundUsd(m.settled_actual_usd),
  };
}

function emptyMoney(): KindMoney {
  return { estimate_usd: 0, settled_estimate_usd: 0, settled_actual_usd: 0 };
}

/** The row has an outcome for this run: answered (text), downloaded (video), or refused, failed, uncertain. */
function isFinish(item: Item, from: ItemState | undefined): boolean {
  const to = item.state;
  if (to === 'rejected' || to === 'uncertain') return true;
  if (to === 'failed') return from === 'submitting' || from === 'submitted' || from === 'running';
  if (to === 'succeeded') return item.kind !== 'video';
  return to === 'downloaded' && item.kind === 'video';
}
