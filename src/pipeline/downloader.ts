// The download lane: each succeeded video is streamed to disk as soon as its task ends (result links expire).
import PQueue from 'p-queue';
import { outputPathFor } from '../core/paths.js';
import { errorSummary } from '../gateway/errors.js';
import type { Item } from '../journal/index.js';
import { log, type RunContext } from './context.js';

export class Downloader {
  private readonly lane: PQueue;
  private failures = 0;

  constructor(private readonly ctx: RunContext) {
    this.lane = new PQueue({ concurrency: ctx.settings.downloadConcurrency });
  }

  get failedCount(): number {
    return this.failures;
  }

  add(item: Item): void {
    void this.lane.add(() => this.download(item));
  }

  idle(): Promise<void> {
    return this.lane.onIdle();
  }

  private async download(item: Item): Promise<void> {
    const { ctx } = this;
    if (ctx.hardStop.signal.aborted || !item.taskId) return;
    const dest = outputPathFor(ctx.settings.outDir, item.id, '.mp4');
    try {
      const file = await ctx.gateway.download(item.taskId, dest, { resultUrl: item.resultUrl ?? undefined, signal: ctx.hardStop.signal });
      const updated = await ctx.commits.write({
        id: item.id, event: 'store',
        patch: { outputPath: dest, sha256: file.sha256, bytes: file.bytes, lastError: null },
        detail: { bytes: file.bytes, sha256: file.sha256, source: file.source },
      });
      ctx.events.emit('transition', updated, 'succeeded');
    } catch (err) {
      if (ctx.hardStop.signal.aborted) return;
      this.failures++;
      const summary = errorSummary(err);
      log(ctx, `download of item '${item.id}' failed: ${summary.message}; a later run retries it`);
      ctx.journal.annotate(item.id, { lastError: summary }, 'download-error');
    }
  }
}
