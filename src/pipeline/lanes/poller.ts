// One scheduler polls every video task: a heap of due times, one sleep, a bounded lane of requests.
import PQueue from 'p-queue';
import { billingResolution } from '../../core/models.js';
import { meterVideoSuccess } from '../../core/metering.js';
import type { PriceSnapshot } from '../../core/settlement.js';
import { errorSummary, type ErrorSummary } from '../../gateway/errors.js';
import type { TaskStatus } from '../../gateway/task-status.js';
import type { Change, Item } from '../../journal/index.js';
import { changedElsewhere } from './changed-elsewhere.js';
import { log, type LaneContext } from '../context.js';
import { MinHeap } from './min-heap.js';
import { priceDriftLine } from '../price-drift.js';
import { pacedFollowUp } from '../pacing/request-pacers.js';
import { taskIdsOf } from './task-ids.js';

/** `taskId`: the id polled next, one of `ids` (every id the submission answer named). */
interface Due {
  at: number;
  itemId: string;
  taskId: string;
  ids: readonly string[];
  failures: number;
  notFound: number;
}

const MAX_ERROR_BACKOFF_MS = 60_000;
/** 404s per id before a task is taken for unknown to the gateway (expired, or never this key's). */
const MAX_NOT_FOUND = 3;
/** Polls come 0-10 % early, never late: spread out, yet no task waits more than one interval to be seen. */
const JITTER = 0.1;
/**
 * A task's first poll comes anywhere from 10 % to 100 % of an interval after it is added: tasks added
 * together (a burst of submissions, a resumed run's tasks) are polled spread over the interval, not at once.
 */
const FIRST_POLL_SPREAD = 0.9;

export class Poller {
  private readonly heap = new MinHeap<Due>((a, b) => a.at < b.at);
  private readonly lane: PQueue;
  private producing = true;
  private wake: AbortController | undefined;
  private polls = 0;
  /** The largest ratio this run recorded per model: a row charged no more above the table writes nothing. */
  private readonly recordedDrift = new Map<string, number>();
  authRefused = false;
  /** Told each time a poll leaves the lane (the retry policy waits for the last task to end). */
  onPollDone: (() => void) | undefined;

  constructor(
    private readonly ctx: LaneContext<'pollConcurrency' | 'pollIntervalMs'>,
    private readonly onSucceeded: (item: Item) => void,
  ) {
    this.lane = new PQueue({ concurrency: ctx.settings.pollConcurrency });
    // 'next' fires after a poll has left the lane's count, so the loop sees the lane as it now is.
    this.lane.on('next', () => {
      this.wake?.abort();
      this.onPollDone?.();
    });
  }

  get pollCount(): number {
    return this.polls;
  }

  get waiting(): number {
    return this.heap.size + this.lane.size + this.lane.pending;
  }

  /** Schedules a task's first poll within one interval from now, spread (a task is never done at once). */
  add(item: Item): void {
    if (!item.taskId) throw new Error(`item '${item.id}' has no task id to poll`);
    const ids = taskIdsOf(item);
    const at = this.ctx.clock.now() + this.ctx.settings.pollIntervalMs * (1 - this.ctx.random() * FIRST_POLL_SPREAD);
    this.heap.push({ at, itemId: item.id, taskId: ids[0]!, ids, failures: 0, notFound: 0 });
    this.wake?.abort();
  }

  /** No more tasks will be added: run() returns once the heap drains. */
  producersDone(): void {
    this.producing = false;
    this.wake?.abort();
  }

  /** Runs until every task is terminal, or the run stops (signal, deadline, a lane's failure: ctx.laneFailed). */
  async run(): Promise<void> {
    const { ctx } = this;
    while (!ctx.stop.signal.aborted) {
      const next = this.heap.peek();
      if (!next && !this.producing && this.lane.size + this.lane.pending === 0) break;
      const now = ctx.clock.now();
      if (next && next.at <= now) {
        this.heap.pop();
        await this.lane.onSizeLessThan(ctx.settings.pollConcurrency);
        this.lane
          .add(() => this.pollOnce(next))
          .catch((err: unknown) => {
            if (!changedElsewhere(ctx, err)) ctx.laneFailed(err);
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
  }

  private nextAt(failures: number): number {
    const { pollIntervalMs } = this.ctx.settings;
    const base =
      failures === 0
        ? pollIntervalMs
        : Math.min(pollIntervalMs * 2 ** failures, Math.max(MAX_ERROR_BACKOFF_MS, pollIntervalMs));
    const jitter = 1 - this.ctx.random() * JITTER;
    return this.ctx.clock.now() + base * jitter;
  }

  private async pollOnce(due: Due): Promise<void> {
    const { ctx } = this;
    this.polls++;
    let status: TaskStatus;
    try {
      // --rpm / --poll-rpm: a poll waits for its slot (a stop while waiting ends it like a cut poll).
      status = await pacedFollowUp(ctx.pacers, ctx.stop.signal, () => ctx.gateway.getTask(due.taskId, ctx.stop.signal));
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
      if (summary.status === 404) {
        const notFound = due.notFound + 1;
        if (notFound >= MAX_NOT_FOUND * due.ids.length) return this.vanish(due, notFound, summary);
        // Spec 4.6: unknown to the gateway by this id; the answer's other id (if it named one) is tried next.
        const next = due.ids[(due.ids.indexOf(due.taskId) + 1) % due.ids.length]!;
        this.reschedule({ ...due, taskId: next, failures, notFound });
      } else {
        this.reschedule({ ...due, failures });
      }
      if (failures === 1 || failures % 10 === 0)
        log(ctx, `poll of task ${due.taskId} (${ctx.voice.item} '${due.itemId}') failed: ${summary.message}`);
      await ctx.journal.annotate(due.itemId, { lastError: summary }, 'poll-error');
      ctx.events.emit('laneError', 'poll', summary);
      return;
    }
    const item = (await ctx.journal.get(due.itemId))!;
    // The id that answered is the task's from now on (the content endpoint is asked by it too).
    const answeredBy = due.taskId !== item.taskId ? { taskId: due.taskId } : {};
    if (status.phase === 'pending' || status.phase === 'running') {
      if (item.state === 'submitted' && status.phase === 'running') {
        const updated = await ctx.commits.write(
          {
            id: item.id,
            event: 'progress',
            patch: answeredBy,
            detail: { status: status.rawStatus, progress: status.progress },
          },
          item,
        );
        ctx.events.emit('transition', updated, 'submitted');
      }
      this.reschedule({ ...due, failures: 0, notFound: 0 });
      return;
    }
    const outcome = status.phase === 'succeeded' ? await this.finish(item, status) : this.fail(item, status);
    const change = { ...outcome, patch: { ...outcome.patch, ...answeredBy } };
    const updated = await ctx.commits.write(change, item);
    ctx.events.emit('transition', updated, item.state);
    if (status.phase === 'succeeded') this.onSucceeded(updated);
  }

  /**
   * Every id the submission answer named is unknown to the gateway, poll after poll (the task expired, or
   * the id was never pollable): polling on would never end, and the task may have been billed. The row
   * becomes uncertain with the reason, its reservation held, for `gbatch resolve` to settle.
   */
  private async vanish(due: Due, notFound: number, summary: ErrorSummary): Promise<void> {
    const { ctx } = this;
    const ids = due.ids.join(' / ');
    const lastError = {
      ...summary,
      status: 404,
      message: `task ${ids} unknown to the gateway (404 x${notFound}): it may have been billed; decide with \`gbatch resolve\``,
    };
    const item = (await ctx.journal.get(due.itemId))!;
    const updated = await ctx.commits.write(
      { id: item.id, event: 'vanish', patch: { lastError }, detail: { taskIds: due.ids, notFound } },
      item,
    );
    ctx.budget.hold();
    log(
      ctx,
      ctx.voice.uncertainRow(
        `task ${ids} (${ctx.voice.item} '${due.itemId}') is unknown to the gateway for this key (404 x${notFound}): the row is uncertain`,
      ),
    );
    ctx.events.emit('laneError', 'poll', lastError);
    ctx.events.emit('transition', updated, item.state);
  }

  private async finish(item: Item, status: TaskStatus): Promise<Change> {
    // Without total_tokens (and no charge of the gateway's own): unmetered, booked at its reservation (the bound).
    const metered = meterVideoSuccess({
      totalTokens: status.totalTokens,
      finalResolution: status.finalResolution,
      gatewayChargeUsd: status.gatewayChargeUsd,
      requestedResolution: billingResolution(item.resolution ?? undefined),
      hasReferenceVideo: item.hasReferenceVideo,
      snapshot: item.priceSnapshot as PriceSnapshot,
      reservedUsd: item.reservedUsd,
    });
    // The ratio is the job's, durable before the row settles: every runner of the job, and every later run,
    // scales by it (a crash before the settlement sees it again at the next poll: a write never lowers it).
    if (metered.driftRatio !== undefined && metered.driftRatio > (this.recordedDrift.get(item.model!) ?? 1)) {
      await this.ctx.journal.recordDrift({
        account: this.ctx.account,
        model: item.model!,
        itemId: item.id,
        totalTokens: status.totalTokens!,
        finalResolution: status.finalResolution ?? null,
        resolution: item.resolution,
        hasReferenceVideo: item.hasReferenceVideo,
        gatewayChargeUsd: status.gatewayChargeUsd!,
        tableUsd: metered.tableUsd!,
        ratio: metered.driftRatio,
      });
      this.recordedDrift.set(item.model!, metered.driftRatio);
    }
    const note =
      status.totalTokens !== undefined
        ? undefined
        : metered.unmetered
          ? 'unmetered: the gateway reported no total_tokens; booked at the reservation (the most it can bill)'
          : "the gateway reported no total_tokens: actual taken from the gateway's reported charge";
    const actualUsd = metered.usd;
    this.ctx.budget.settle(item.reservedUsd, actualUsd);
    // Charged above the pricing table: later reservations are scaled by the ratio, said once per new high.
    if (metered.driftRatio !== undefined && this.ctx.budget.observeDrift(metered.driftRatio)) {
      log(this.ctx, priceDriftLine(item, metered.tableUsd!, actualUsd, metered.driftRatio, 'now', this.ctx.voice));
    }
    return {
      id: item.id,
      event: 'finish',
      patch: {
        totalTokens: status.totalTokens ?? null,
        finalResolution: status.finalResolution ?? null,
        actualUsd,
        reservedUsd: 0,
        gatewayChargeUsd: status.gatewayChargeUsd ?? null,
        resultUrl: status.resultUrl ?? null,
        lastError: note ? { message: note } : null,
        ...(metered.unmetered ? { unmetered: true } : {}),
      },
      detail: {
        status: status.rawStatus,
        totalTokens: status.totalTokens,
        actualUsd,
        ...(metered.unmetered ? { unmetered: true } : {}),
        ...(metered.tableUsd !== undefined
          ? { tableUsd: metered.tableUsd, gatewayChargeUsd: status.gatewayChargeUsd }
          : {}),
      },
    };
  }

  private fail(item: Item, status: TaskStatus): Change {
    // A failed task is refunded in full by the gateway (spec 8.3.4).
    this.ctx.budget.settle(item.reservedUsd, 0);
    return {
      id: item.id,
      event: 'fail',
      patch: {
        actualUsd: 0,
        reservedUsd: 0,
        gatewayChargeUsd: status.gatewayChargeUsd ?? null,
        lastError: { message: status.failReason ?? `task ${status.rawStatus}` },
      },
      detail: { status: status.rawStatus, reason: status.failReason },
    };
  }

  private reschedule(due: Due): void {
    this.heap.push({ ...due, at: this.nextAt(due.failures) });
    this.wake?.abort();
  }
}
