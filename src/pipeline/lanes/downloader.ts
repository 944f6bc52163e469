// The download lane: each succeeded video is streamed to its output (a file or an object) as soon as its
// task ends (result links expire).
import PQueue from 'p-queue';
import { afterFailedDownload, MAX_DOWNLOAD_FAILURES } from '../../core/download-tries.js';
import { outputPathFor, safeFileStem } from '../../core/paths.js';
import { isRetryableDownload } from '../../gateway/download.js';
import { DownloadError, errorSummary } from '../../gateway/errors.js';
import type { Item, ItemError } from '../../journal/index.js';
import { changedElsewhere } from './changed-elsewhere.js';
import { log, type LaneContext } from '../context.js';
import type { OutputStop } from '../stops/output-stop.js';
import { pacedFollowUp } from '../pacing/request-pacers.js';

/**
 * A round (the client's own attempts: content endpoint, then result_url) that fails on transient trouble
 * is tried again after a backoff, up to src/core/download-tries.ts's bounds per run and in all.
 */
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
    private readonly ctx: LaneContext<'downloadConcurrency' | 'outDir' | 'pollIntervalMs'>,
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
    const dest = ctx.objects
      ? ctx.objects.target(`${safeFileStem(item.id)}.mp4`)
      : outputPathFor(ctx.settings.outDir, item.id, '.mp4');
    const where = typeof dest === 'string' ? dest : dest.location;
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
          patch: { outputPath: where, sha256: file.sha256, bytes: file.bytes, lastError: null },
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
      if (this.outputs?.handle(err, where)) return;
      const summary = errorSummary(err);
      // Counted in the journal: the row's failed rounds in all, whichever run tried them.
      const failures = item.downloadFailures + 1;
      await ctx.journal.annotate(item.id, { lastError: summary, downloadFailures: failures }, 'download-error');
      ctx.events.emit('laneError', 'download', summary);
      const counted: Item = { ...item, lastError: summary, downloadFailures: failures };
      const verdict = afterFailedDownload({
        failures,
        round,
        transient: isTransientDownloadFailure(err),
        stopping: ctx.stop.signal.aborted,
      });
      if (verdict === 'again') return this.retryLater(counted, round);
      this.failures++;
      if (verdict === 'forfeit') return this.forfeit(counted, summary);
      log(ctx, ctx.voice.downloadFailed(item.id, summary.message));
    }
  }

  /** The row's download failed MAX_DOWNLOAD_FAILURES rounds: it ends `failed` with the cause; its charge stays. */
  private async forfeit(item: Item, cause: ItemError): Promise<void> {
    const { ctx } = this;
    const lastError: ItemError = {
      ...cause,
      message: `the video could not be downloaded in ${MAX_DOWNLOAD_FAILURES} rounds of tries (its task succeeded and stays billed): ${cause.message}`,
    };
    try {
      const updated = await ctx.commits.write(
        {
          id: item.id,
          event: 'forfeit',
          expect: 'succeeded',
          patch: { lastError },
          detail: { downloadFailures: item.downloadFailures, taskId: item.taskId },
        },
        item,
      );
      log(
        ctx,
        `download of ${ctx.voice.item} '${item.id}' failed ${item.downloadFailures} times in all; the ${ctx.voice.item} is failed: ${cause.message}`,
      );
      ctx.events.emit('transition', updated, 'succeeded');
    } catch (err) {
      if (!changedElsewhere(ctx, err)) throw err;
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
