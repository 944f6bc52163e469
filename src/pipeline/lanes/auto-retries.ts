// Sends again, within the run, the rows the retry policy covers (src/core/auto-retry.ts): it hears each
// row the run ends, waits out the row's backoff, then moves it back to pending with the same guarded
// transition an operator's `gbatch retry` (or `resolve --resubmit`) uses; the submitter reserves it again.
// How many sends a row has had comes from the journal (its `autoRetries`, written with each requeue), so
// no run, night or server starts a row's --retry-failed allowance again.
import { autoRetryDelayMs, autoRetryEvent, type AutoRetryPolicy } from '../../core/auto-retry.js';
import type { ItemState } from '../../core/states.js';
import { dueForAutoRetry, type Change, type Item } from '../../journal/index.js';
import { requeueChange } from '../../journal/requeue.js';
import { changedElsewhere } from './changed-elsewhere.js';
import { log, type LaneContext } from '../context.js';

interface Scheduled {
  at: number;
  item: Item;
  event: 'requeue' | 'resubmit';
  retry: number;
}

export class AutoRetries {
  private readonly scheduled = new Map<string, Scheduled>();
  private wake: AbortController | undefined;
  /** Rows sent again this run: by --retry-failed (a row once per retry), and uncertain text rows resubmitted. */
  readonly requeued: string[] = [];
  readonly resubmitted: string[] = [];
  private readonly onTransition = (item: Item, from: ItemState | undefined): void => this.hear(item, from);

  constructor(
    private readonly ctx: LaneContext,
    private readonly policy: AutoRetryPolicy,
  ) {
    ctx.events.on('transition', this.onTransition);
  }

  /** Something changed that may let next() decide: a row ended, or a poll finished. */
  nudge(): void {
    this.wake?.abort();
  }

  stop(): void {
    this.ctx.events.off('transition', this.onTransition);
    this.nudge();
  }

  /**
   * Waits until a scheduled row is due, moves every due row back to pending and answers true (the
   * submitter has work again); false once nothing is scheduled and `busy()` (work that may still end a
   * row: tasks being polled) is false, or the run stops sending.
   */
  async next(busy: () => boolean): Promise<boolean> {
    const { ctx } = this;
    for (;;) {
      // Sending stopped, or the run stopped waiting for tasks (then nothing polled will end a row).
      if (ctx.submitStop.signal.aborted || ctx.stop.signal.aborted) return false;
      const now = ctx.clock.now();
      const due = [...this.scheduled.values()].filter((s) => s.at <= now);
      if (due.length > 0) {
        await this.sendAgain(due);
        return true;
      }
      const earliest = Math.min(...[...this.scheduled.values()].map((s) => s.at));
      if (!Number.isFinite(earliest) && !busy()) return false;
      this.wake = new AbortController();
      try {
        // Without a row due, only an event wakes it (a row ended, a poll finished, the run stops).
        await ctx.clock.sleep(
          Number.isFinite(earliest) ? earliest - now : 3_600_000,
          AbortSignal.any([this.wake.signal, ctx.submitStop.signal, ctx.stop.signal]),
        );
      } catch {
        // woken early
      }
      this.wake = undefined;
    }
  }

  /**
   * Before the run sends anything: the rows earlier runs left failed or rejected that the policy covers
   * (src/core/auto-retry.ts) go back to pending, as this run's first retry of each. Read and written under
   * one write lock, as an operator's `gbatch retry` is: a row another runner or an operator moved meanwhile
   * is left as it now is. Orphaned rows are not the run's work and stay as they are.
   */
  async requeueLeftByEarlierRuns(): Promise<void> {
    const { ctx, policy } = this;
    if (policy.retryFailed <= 0) return;
    const requeued = await ctx.journal.decideAndApply(async (reader) => {
      const left: Item[] = [];
      for await (const item of reader.iterate({ states: ['failed', 'rejected'], notOrphaned: true })) left.push(item);
      const due = await dueForAutoRetry(left, reader, policy);
      return {
        changes: due.map((item) => ({ ...policyRequeue(item), expect: item.state })),
        result: due,
      };
    });
    for (const item of requeued) {
      this.requeued.push(item.id);
      // As the row now is (requeueChange's patch: the attempt's facts cleared), for the run's live counts.
      ctx.events.emit('transition', { ...item, ...policyRequeue(item).patch, state: 'pending' }, item.state);
    }
    if (requeued.length > 0) {
      const ids = requeued
        .slice(0, 20)
        .map((item) => `'${item.id}'`)
        .join(', ');
      const more = requeued.length > 20 ? ` and ${requeued.length - 20} more` : '';
      const retries = [...new Set(requeued.map((item) => item.autoRetries + 1))].sort((a, b) => a - b);
      const which = retries.length === 1 ? `retry ${retries[0]}` : `retries ${retries[0]}-${retries.at(-1)}`;
      log(ctx, ctx.voice.retryingLeftovers(requeued.length, which, policy.retryFailed, `${ids}${more}`));
    }
  }

  private hear(item: Item, from: ItemState | undefined): void {
    const sent = item.autoRetries;
    const event = autoRetryEvent(
      {
        kind: item.kind,
        state: item.state,
        from,
        errorStatus: item.lastError?.status,
        autoResubmits: item.autoResubmits,
      },
      sent,
      this.policy,
    );
    if (!event) return;
    const retry = event === 'resubmit' ? item.autoResubmits + 1 : sent + 1;
    this.scheduled.set(item.id, {
      at: this.ctx.clock.now() + autoRetryDelayMs(retry, this.policy),
      item,
      event,
      retry,
    });
    this.nudge();
  }

  private async sendAgain(due: readonly Scheduled[]): Promise<void> {
    const { ctx } = this;
    await Promise.all(
      due.map(async ({ item, event, retry }) => {
        this.scheduled.delete(item.id);
        const change: Change =
          event === 'requeue'
            ? { ...requeueChange(item, { by: 'retry-policy', retry }), expect: item.state }
            : {
                id: item.id,
                event: 'resubmit',
                expect: 'uncertain',
                patch: { autoResubmits: retry, reservedUsd: 0 },
                detail: { reason: 'auto-resubmit of an uncertain text item (opt-in)', autoResubmits: retry },
              };
        try {
          const updated = await ctx.commits.write(change, item);
          (event === 'requeue' ? this.requeued : this.resubmitted).push(item.id);
          log(
            ctx,
            event === 'requeue'
              ? ctx.voice.retryingOne(
                  item.kind,
                  item.id,
                  retry,
                  this.policy.retryFailed,
                  item.state === 'failed'
                    ? 'its task failed and was refunded'
                    : `refused with ${item.lastError?.status ?? '?'}, a transient code`,
                )
              : `resubmitting uncertain ${item.kind} ${ctx.voice.item} '${item.id}' (opt-in policy; a duplicate may be billed)`,
          );
          ctx.events.emit('transition', updated, item.state);
        } catch (err) {
          if (!changedElsewhere(ctx, err)) throw err;
        }
      }),
    );
  }
}

/** The policy's requeue of a row an earlier run left: the next send of its allowance. */
function policyRequeue(item: Item): Change {
  return requeueChange(item, { by: 'retry-policy', retry: item.autoRetries + 1 });
}
