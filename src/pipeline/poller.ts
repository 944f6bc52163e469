// One scheduler polls every video task: a heap of due times, one sleep, a bounded lane of requests.
import PQueue from 'p-queue';
import { billingResolution } from '../core/models.js';
import { meterVideoSuccess } from '../core/metering.js';
import type { PriceSnapshot } from '../core/settlement.js';
import { errorSummary } from '../gateway/errors.js';
import type { TaskStatus } from '../gateway/task-status.js';
import type { Change, Item } from '../journal/index.js';
import { changedElsewhere } from './changed-elsewhere.js';
import { log, type RunContext } from './context.js';
import { MinHeap } from './min-heap.js';
import { priceDriftLine } from './price-drift.js';

interface Due { at: number; itemId: string; taskId: string; failures: number }

const MAX_ERROR_BACKOFF_MS = 60_000;
const MAX_NOT_FOUND = 3;
/** Polls come 0-10 % early, never late: spread out, yet no task waits more than one interval to be seen. */
const JITTER = 0.1;

export class Poller {
  private readonly heap = new MinHeap<Due>((a, b) => a.at < b.at);
  private readonly lane: PQueue;
  private producing = true;
  private wake: AbortController | undefined;
  private polls = 0;
  authRefused = false;
  private failure: unknown;

  constructor(private readonly ctx: RunContext, private readonly onSucceeded: (item: Item) => void) {
    this.lane = new PQueue({ concurrency: ctx.settings.pollConcurrency });
    // 'next' fires after a poll has left the lane's count, so the loop sees the lane as it now is.
    this.lane.on('next', () => this.wake?.abort());
  }

  get pollCount(): number {
    return this.polls;
  }

  get waiting(): number {
    return this.heap.size + this.lane.size + this.lane.pending;
  }

  /** Schedules a task's first poll one interval from now (a task is never done at once). */
  add(item: Item): void {
    if (!item.taskId) throw new Error(`item '${item.id}' has no task id to poll`);
    this.heap.push({ at: this.nextAt(0), itemId: item.id, taskId: item.taskId, failures: 0 });
    this.wake?.abort();
  }

  /** No more tasks will be added: run() returns once the heap drains. */
  producersDone(): void {
    this.producing = false;
    this.wake?.abort();
  }

  /** Runs until every task is terminal, or the run stops (signal, deadline). */
  async run(): Promise<void> {
    const { ctx } = this;
    while (!ctx.stop.signal.aborted) {
      const next = this.heap.peek();
      if (!next && !this.producing && this.lane.size + this.lane.pending === 0) break;
      const now = ctx.clock.now();
      if (next && next.at <= now) {
        this.heap.pop();
        await this.lane.onSizeLessThan(ctx.settings.pollConcurrency);
        this.lane.add(() => this.pollOnce(next)).catch((err: unknown) => {
          if (changedElsewhere(ctx, err)) return;
          this.failure ??= err;
          this.ctx.stop.abort('internal error');
        });
        continue;
      }
      const waitMs = next ? next.at - now : 60_000;
      this.wake = new AbortController();
      const signal = AbortSignal.any([this.wake.signal, ctx.stop.signal]);
      try {
        await ctx.clock.sleep(waitMs, signal);
      } catch {
        // woken early: a task was added, producers finished, a poll ended, or the run is stopping
      }
      this.wake = undefined;
    }
    await this.lane.onIdle();
    if (this.failure !== undefined) throw this.failure;
  }

  private nextAt(failures: number): number {
    const { pollIntervalMs } = this.ctx.settings;
    const base = failures === 0 ? pollIntervalMs : Math.min(pollIntervalMs * 2 ** failures, Math.max(MAX_ERROR_BACKOFF_MS, pollIntervalMs));
    const jitter = 1 - this.ctx.random() * JITTER;
    return this.ctx.clock.now() + base * jitter;
  }

  private async pollOnce(due: Due): Promise<void> {
    const { ctx } = this;
    this.polls++;
    let status: TaskStatus;
    try {
      status = await ctx.gateway.getTask(due.taskId, ctx.stop.signal);
    } catch (err) {
      if (ctx.stop.signal.aborted) return;
      const failures = due.failures + 1;
      const summary = errorSummary(err);
      if (summary.status === 401) {
        log(ctx, 'the gateway refused the API key (401) while polling: stopping; fix GATEWAY_API_KEY and run again');
        this.authRefused = true;
        ctx.submitStop.abort('auth');
        ctx.stop.abort('auth');
        return;
      }
      if (summary.status === 404 && failures >= MAX_NOT_FOUND) {
        // Spec 4.6: another account's or an unknown task. Polling on would never end; an operator must look.
        log(ctx, `task ${due.taskId} (item '${due.itemId}') is unknown to the gateway for this key (404 x${failures}); no longer polled in this run`);
        const notFound = { ...summary, message: `task ${due.taskId} unknown to the gateway (404)` };
        await ctx.journal.annotate(due.itemId, { lastError: notFound }, 'poll-not-found');
        ctx.events.emit('laneError', 'poll', notFound);
        return;
      }
      if (failures === 1 || failures % 10 === 0) log(ctx, `poll of task ${due.taskId} (item '${due.itemId}') failed: ${summary.message}`);
      await ctx.journal.annotate(due.itemId, { lastError: summary }, 'poll-error');
      ctx.events.emit('laneError', 'poll', summary);
      this.reschedule({ ...due, failures });
      return;
    }
    const item = (await ctx.journal.get(due.itemId))!;
    if (status.phase === 'pending' || status.phase === 'running') {
      if (item.state === 'submitted' && status.phase === 'running') {
        const updated = await ctx.commits.write({ id: item.id, event: 'progress', detail: { status: status.rawStatus, progress: status.progress } }, item);
        ctx.events.emit('transition', updated, 'submitted');
      }
      this.reschedule({ ...due, failures: 0 });
      return;
    }
    const change = status.phase === 'succeeded' ? this.finish(item, status) : this.fail(item, status);
    const updated = await ctx.commits.write(change, item);
    ctx.events.emit('transition', updated, item.state);
    if (status.phase === 'succeeded') this.onSucceeded(updated);
  }

  private finish(item: Item, status: TaskStatus): Change {
    // Without total_tokens (and no charge of the gateway's own): unmetered, booked at its reservation (the bound).
    const metered = meterVideoSuccess({
      totalTokens: status.totalTokens, finalResolution: status.finalResolution, gatewayChargeUsd: status.gatewayChargeUsd,
      requestedResolution: billingResolution(item.resolution ?? undefined), hasReferenceVideo: item.hasReferenceVideo,
      snapshot: item.priceSnapshot as PriceSnapshot, reservedUsd: item.reservedUsd,
    });
    const note = status.totalTokens !== undefined ? undefined : metered.unmetered
      ? 'unmetered: the gateway reported no total_tokens; booked at the reservation (the most it can bill)'
      : "the gateway reported no total_tokens: actual taken from the gateway's reported charge";
    const actualUsd = metered.usd;
    this.ctx.budget.settle(item.reservedUsd, actualUsd);
    // Charged above the pricing table: later reservations are scaled by the ratio, said once per new high.
    if (metered.driftRatio !== undefined && this.ctx.budget.observeDrift(metered.driftRatio)) {
      log(this.ctx, priceDriftLine(item, metered.tableUsd!, actualUsd, metered.driftRatio));
    }
    return {
      id: item.id, event: 'finish',
      patch: {
        totalTokens: status.totalTokens ?? null, finalResolution: status.finalResolution ?? null, actualUsd, reservedUsd: 0,
        gatewayChargeUsd: status.gatewayChargeUsd ?? null, resultUrl: status.resultUrl ?? null,
        lastError: note ? { message: note } : null, ...(metered.unmetered ? { unmetered: true } : {}),
      },
      detail: {
        status: status.rawStatus, totalTokens: status.totalTokens, actualUsd, ...(metered.unmetered ? { unmetered: true } : {}),
        ...(metered.tableUsd !== undefined ? { tableUsd: metered.tableUsd, gatewayChargeUsd: status.gatewayChargeUsd } : {}),
      },
    };
  }

  private fail(item: Item, status: TaskStatus): Change {
    // A failed task is refunded in full by the gateway (spec 8.3.4).
    this.ctx.budget.settle(item.reservedUsd, 0);
    return {
      id: item.id, event: 'fail',
      patch: { actualUsd: 0, reservedUsd: 0, gatewayChargeUsd: status.gatewayChargeUsd ?? null, lastError: { message: status.failReason ?? `task ${status.rawStatus}` } },
      detail: { status: status.rawStatus, reason: status.failReason },
    };
  }

  private reschedule(due: Due): void {
    this.heap.push({ ...due, at: this.nextAt(due.failures) });
    this.wake?.abort();
  }
}
