// Schedules results.jsonl rebuilds during a run. Each rebuild rewrites the whole file, so they are
// spaced geometrically: the next waits until as many new answers arrived as are already written (or
// the interval passed with some waiting), keeping the total work linear in the number of answers.
import { resultsPath, writeResultsFile } from './results-file.js';
import type { RunContext } from './context.js';

export class ResultsWriter {
  private waiting = 0;
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private flushQueued = false;

  constructor(private readonly ctx: RunContext, private readonly intervalMs = 5000, private readonly minBatch = 256) {}

  markDirty(): void {
    this.waiting++;
    if (this.waiting >= Math.max(this.minBatch, this.written)) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.intervalMs);
      this.timer.unref();
    }
  }

  /** Rewrites the file if anything changed, then moves the items now on disk to `downloaded`. */
  flush(): Promise<void> {
    // One rebuild waiting behind the current one covers every answer that arrives meanwhile.
    if (this.flushQueued) return this.writing;
    this.flushQueued = true;
    this.writing = this.writing.then(async () => {
      this.flushQueued = false;
      if (this.waiting === 0) return;
      this.waiting = 0;
      const { ctx } = this;
      const written = await writeResultsFile(ctx.journal, ctx.settings.outDir);
      this.written += written.length;
      const outputPath = resultsPath(ctx.settings.outDir);
      const listening = ctx.events.listenerCount('transition') > 0;
      await Promise.all(written.map(async (id) => {
        const change = { id, event: 'store' as const, patch: { outputPath }, detail: { file: 'results.jsonl' } };
        if (!listening) return ctx.commits.commit(change);
        ctx.events.emit('transition', await ctx.commits.write(change), 'succeeded');
      }));
    });
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
