// The download lane: each succeeded video is streamed to disk as soon as its task ends (result links expire).
import PQueue from 'p-queue';
import { outputPathFor } from '../../core/paths.js';
import { isRetryableDownload } from '../../gateway/download.js';
import { DownloadError, errorSummary } from '../../gateway/errors.js';
import type { Item } from '../../journal/index.js';
import { log, type RunContext } from '../context.js';
import type { OutputStop } from '../stops/output-stop.js';
import { pacedFollowUp } from '../pacing/request-pacers.js';

/**
 * Rounds of the client's own attempts (content endpoint, then result_url) per item and run. A round
 * that fails on transient trouble (5xx, 429, a cut connection, a short body, content not ready yet) is
 * tried again after a backoff instead of leaving a finished video to a later run; a definite refusal is not.
 */
export const MAX_DOWNLOAD_ROUNDS = 5;
const MAX_ROUND_BACKOFF_MS = 60_000;

export function isTransientDownloadFailure(err: unknown): boolean {
  return err instanceof DownloadError && isRetryableDownload(err);
}

export class Downloader {
  private readonly lane: PQueue;
  private readonly backingOff = new Set<Promise<void>>();
  /** Downloads whose bytes have all arrived and that left the lane: fsync, rename and journal to go. */
  private readonly finishing = new Set<Promise<void>>();
  private failures = 0;

  constructor(
    private readonly ctx: RunContext,
    private readonly outputs?: OutputStop,
  ) {
    this.lane = new PQueue({ concurrency: ctx.settings.downloadConcurrency });
  }

  get failedCount(): number {
    return this.failures;
  }

  /** Transfers under way, and those still finishing on disk. */
  get activeCount(): number {
    return this.lane.pending + this.finishing.size;
  }

  /** Downloads waiting for a slot or backing off before another round. */
  get queuedCount(): number {
    return this.lane.size + this.backingOff.size;
  }

  add(item: Item, round = 1): void {
    this.lane.add(() => this.transfer(item, round)).catch((err: unknown) => this.ctx.laneFailed(err));
  }

  /** Resolves when no download is running, queued, finishing, or waiting out a backoff. */
  async idle(): Promise<void> {
    for (;;) {
      await this.lane.onIdle();
      if (this.backingOff.size === 0 && this.finishing.size === 0 && this.lane.size + this.lane.pending === 0) return;
      await Promise.all([...this.backingOff, ...this.finishing]);
    }
  }

  /**
   * A lane slot is held while bytes arrive. Once the whole body is in, the file's fsync, rename and
   * journal entry go on outside the lane (at most as many as there are lanes), so the disk's flush of
   * one file overlaps the next transfer instead of idling the connection.
   */
  private transfer(item: Item, round: number): Promise<void> {
    return new Promise<void>((leaveLane, failInLane) => {
      let left = false;
      const onReceived = (): void => {
        if (this.finishing.size >= this.ctx.settings.downloadConcurrency) return;
        left = true;
        this.finishing.add(whole);
        leaveLane();
      };
      const whole: Promise<void> = this.download(item, round, onReceived).then(
        () => {
          if (left) this.finishing.delete(whole);
          else leaveLane();
        },
        (err: unknown) => {
          if (!left) return failInLane(err);
          this.finishing.delete(whole);
          this.ctx.laneFailed(err); // a journal that cannot be written, or a bug
        },
      );
    });
  }

  private async download(item: Item, round: number, onReceived: () => void): Promise<void> {
    const { ctx } = this;
    // A download not started when the run stops (or after a failed write) is left for the next run (the item stays
    // `succeeded`).
    if (ctx.stop.signal.aborted || ctx.hardStop.signal.aborted || this.outputs?.stopped || !item.taskId) return;
    const dest = outputPathFor(ctx.settings.outDir, item.id, '.mp4');
    try {
      const taskId = item.taskId;
      const file = await pacedFollowUp(ctx.pacers, ctx.hardStop.signal, (onWire) =>
        ctx.gateway.download(taskId, dest, {
          resultUrl: item.resultUrl ?? undefined,
          signal: ctx.hardStop.signal,
          onReceived: () => {
            onWire();
            onReceived();
          },
        }),
      );
      // The file is already durable under its name; losing this record to a power cut would only mean
      // downloading it again. It is made durable at the end of the run (the journal's flush()), which
      // keeps the disk's flush, stuck behind the videos' writeback, off the event loop.
      const updated = await ctx.commits.write(
        {
          id: item.id,
          event: 'store',
          patch: { outputPath: dest, sha256: file.sha256, bytes: file.bytes, lastError: null },
          detail: { bytes: file.bytes, sha256: file.sha256, source: file.source },
        },
        item,
        { durability: 'relaxed' },
      );
      ctx.events.emit('transition', updated, 'succeeded');
    } catch (err) {
      // Cut, or failing while the run stops (a dead gateway): the next run downloads it; one line said why.
      if (ctx.hardStop.signal.aborted || (ctx.stop.signal.aborted && isTransientDownloadFailure(err))) return;
      // The disk, not the gateway: the temp file is gone, the item stays `succeeded`, and the run stops.
      if (this.outputs?.handle(err, dest)) return;
      const summary = errorSummary(err);
      await ctx.journal.annotate(item.id, { lastError: summary }, 'download-error');
      ctx.events.emit('laneError', 'download', summary);
      if (round < MAX_DOWNLOAD_ROUNDS && isTransientDownloadFailure(err) && !ctx.stop.signal.aborted) {
        this.retryLater(item, round);
        return;
      }
      this.failures++;
      log(ctx, `download of item '${item.id}' failed: ${summary.message}; a later run retries it`);
    }
  }

  private retryLater(item: Item, round: number): void {
    const { ctx } = this;
    const base = Math.min(ctx.settings.pollIntervalMs * 2 ** (round - 1), MAX_ROUND_BACKOFF_MS);
    const waiting = ctx.clock.sleep(base * (0.5 + ctx.random() / 2), ctx.stop.signal).then(
      () => this.add(item, round + 1),
      () => {
        this.failures++; // the run is stopping: the item stays `succeeded` for a later run
      },
    );
    this.backingOff.add(waiting);
    void waiting.finally(() => this.backingOff.delete(waiting));
  }
}
