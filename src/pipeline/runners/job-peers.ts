// A runner among others on one job: every beat it sweeps runners that are gone (their mid-request rows
// become uncertain, their tasks and answers become its own), follows a 402 another runner saw, and
// shares the account's 429 pause both ways. On a journal one runner owns, there is nothing to do.
import type { Item } from '../../journal/index.js';
import { log, type LaneContext } from '../context.js';
import { adoptDrifts } from '../job-drift.js';
import { repeatWithoutOverlap, type Repeating } from '../repeat.js';
import { budgetChangedLine } from '../../core/job-budget.js';
import { fleetPace } from './fleet-pace.js';

export interface PeerLanes {
  poll(item: Item): void;
  download(item: Item): void;
  /** An answer to write to results.jsonl (a chat row the gone runner had received). */
  answered(): void;
  balanceRanOut(): void;
}

/** The first wait for the other runners' last rows, doubled on each look up to LAST_LOOK_MS. */
const FIRST_LOOK_MS = 50;
/**
 * This runner's exit waits on the look that finds the others done, so the looks stay close together: one
 * is an indexed count, ten a second are nothing to the server, while looks a beat (500 ms) apart made
 * runners exit up to 500 ms after the job's last answer.
 */
const LAST_LOOK_MS = 100;

export class JobPeers {
  private repeating: Repeating | undefined;
  private releasedPending = 0;
  private failure: unknown;
  /** Reads of the job's money begun, and the latest of them applied. */
  private moneyReads = 0;
  private moneyApplied = 0;
  /** How many beats apart this runner looks at the job, from the fleet's size its last sweep saw (fleet-pace.ts). */
  private pace = 1;
  private beats = 0;

  constructor(
    private readonly ctx: LaneContext,
    private readonly lanes: PeerLanes,
    private readonly everyMs: number,
  ) {}

  start(): void {
    if (!this.ctx.journal.capabilities.sharedRunners) return;
    this.repeating = repeatWithoutOverlap(this.everyMs, () => this.onBeat());
  }

  /** One beat of the timer: a look at the job on every `pace`-th. */
  onBeat(): Promise<void> {
    if (++this.beats % this.pace !== 0) return Promise.resolve();
    return this.tick().catch((err: unknown) => {
      this.failure ??= err;
      this.ctx.laneFailed(err); // seen at once, not when this runner's share is done
    });
  }

  stop(): void {
    this.repeating?.stop();
    this.repeating = undefined;
  }

  /** Pending rows freed by sweeps since the last call. */
  private takeReleased(): number {
    const n = this.releasedPending;
    this.releasedPending = 0;
    return n;
  }

  /**
   * Once this runner's own share is done: stays while other runners hold open rows (finishing them, or
   * stopping and being swept to this one), so every runner of the job ends with the job. Returns
   * 'claimable' when pending rows are free to send again (a runner that stopped held them), 'done' when
   * nothing is left elsewhere or the run is stopping.
   */
  async settle(): Promise<'claimable' | 'done'> {
    const { ctx } = this;
    if (!ctx.journal.capabilities.sharedRunners) return 'done';
    let said = false;
    // The others' last rows are usually answered within a request's latency: looked at often (this
    // runner's exit waits on the look that finds them done). Sweeps run on the beat (start()'s timer);
    // this loop runs one itself only as often.
    let pauseMs = Math.min(this.everyMs, FIRST_LOOK_MS) * this.pace;
    let sinceTickMs = Infinity;
    while (!ctx.stop.signal.aborted) {
      if (sinceTickMs >= this.everyMs * this.pace) {
        await this.tick();
        sinceTickMs = 0;
      }
      const work = await ctx.journal.membership.othersWork();
      if ((this.takeReleased() > 0 || work.claimable > 0) && !ctx.submitStop.signal.aborted) return 'claimable';
      if (work.held === 0) return 'done';
      if (!said)
        log(
          ctx,
          `this runner's share is done; ${work.held} row(s) are with other runners of the job: waiting for them (a runner that stops is taken over)`,
        );
      said = true;
      try {
        await ctx.clock.sleep(pauseMs, ctx.stop.signal);
      } catch {
        return 'done';
      }
      sinceTickMs += pauseMs;
      pauseMs = Math.min(Math.min(this.everyMs, LAST_LOOK_MS) * this.pace, pauseMs * 2);
    }
    return 'done';
  }

  /** A failure of the last beats (a journal error): the run ends with it. */
  get error(): unknown {
    return this.failure;
  }

  /**
   * The job's money as the journal holds it becomes this runner's view: what the other runners reserved
   * and settled, and whether their work in flight may still free headroom for a row waiting on the budget;
   * with it, the group ratio another runner saw the gateway charge (later reservations are scaled by it).
   */
  async observeBudget(): Promise<void> {
    const { journal, budget } = this.ctx;
    if (!journal.capabilities.sharedRunners) return;
    const read = ++this.moneyReads;
    const mark = budget.mark();
    const money = await journal.coordination.jobMoney();
    // Reads overlap (the beat's, and one after a refusal): one begun earlier, answered later, is older news,
    // and must not bring back a budget a later read saw changed.
    if (read < this.moneyApplied) return;
    this.moneyApplied = read;
    adoptDrifts(this.ctx, money.drifts, 'another runner');
    const was = budget.budgetUsd;
    budget.observe(money, mark);
    if (budget.budgetUsd !== was) log(this.ctx, budgetChangedLine(was, budget.budgetUsd));
  }

  async tick(): Promise<void> {
    const { ctx, lanes } = this;
    if (!ctx.journal.capabilities.sharedRunners) return;
    const shared = ctx.journal.coordination;
    // Before the sweep: the rows it hands over were reserved by the runner that is gone, and the view
    // their settlement is taken from must hold that reservation.
    await this.observeBudget();
    const { madeUncertain, adopted, released, runners } = await ctx.journal.membership.sweep();
    if (runners !== undefined) this.pace = fleetPace(runners);
    if (madeUncertain.length > 0) {
      log(ctx, ctx.voice.uncertainNow(madeUncertain.length, 'on a runner that is gone'));
    }
    for (const item of adopted) {
      if (item.state === 'submitted' || item.state === 'running') lanes.poll(item);
      else if (item.state === 'succeeded' && item.kind === 'video') lanes.download(item);
      else if (item.state === 'succeeded') lanes.answered();
    }
    if (adopted.length > 0) log(ctx, `took over ${ctx.voice.items(adopted.length)} from a runner that is gone`);
    this.releasedPending += released;
    if (!ctx.submitStop.signal.aborted && (await shared.submissionsStopped()) === 'balance') lanes.balanceRanOut();
    await this.sharePause();
  }

  /** This runner's 429 pause goes to the journal; a longer one from another runner comes back. */
  private async sharePause(): Promise<void> {
    const { ctx } = this;
    const shared = ctx.journal.coordination;
    const ownMs = ctx.gateway.pausedUntil() - ctx.clock.now();
    if (ownMs > 0) await shared.pauseAccount(ctx.account, ownMs);
    const sharedMs = await shared.accountPause(ctx.account);
    if (sharedMs > Math.max(0, ownMs)) ctx.gateway.pauseFor(sharedMs);
  }
}
