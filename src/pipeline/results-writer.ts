// Schedules results.jsonl rebuilds during a run. Each rebuild writes a whole new file (copying the
// settled prefix of the last one), so they are spaced geometrically: the next waits until as many new
// answers arrived as are already written (or the interval passed with some waiting), keeping the total
// work linear in the number of answers.
import { resultsPath, writeResultsFile, type SettledPrefix } from './results-file.js';
import type { RunContext } from './context.js';

/** Items moved to `downloaded` per transaction: bounded so the event loop is never held for long. */
const STORE_BATCH = 2000;

export class ResultsWriter {
  private waiting = 0;
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private flushQueued = false;
  private prefix: SettledPrefix | undefined;

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
      const rebuild = await writeResultsFile(ctx.journal, ctx.settings.outDir, this.prefix);
      this.prefix = rebuild.prefix;
      const { written } = rebuild;
      this.written += written.length;
      const outputPath = resultsPath(ctx.settings.outDir);
      const listening = ctx.events.listenerCount('transition') > 0;
      for (let i = 0; i < written.length; i += STORE_BATCH) {
        const ids = written.slice(i, i + STORE_BATCH);
        ctx.journal.markStored(ids, outputPath, { file: 'results.jsonl' });
        if (listening) for (const id of ids) ctx.events.emit('transition', ctx.journal.get(id)!, 'succeeded');
        // Between batches, the answers in flight are served.
        if (i + STORE_BATCH < written.length) await new Promise((resolve) => setImmediate(resolve));
      }
    });
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
