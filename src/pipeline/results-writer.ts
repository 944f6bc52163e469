// Debounces results.jsonl rebuilds during a run: at most one rewrite per interval, and one at the end.
import { resultsPath, writeResultsFile } from './results-file.js';
import type { RunContext } from './context.js';

export class ResultsWriter {
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: RunContext, private readonly intervalMs = 1000) {}

  markDirty(): void {
    this.dirty = true;
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.intervalMs);
      this.timer.unref();
    }
  }

  /** Rewrites the file if anything changed, then moves the items now on disk to `downloaded`. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const { ctx } = this;
      const written = writeResultsFile(ctx.journal, ctx.settings.outDir);
      const items = await Promise.all(written.map((id) => ctx.commits.write({ id, event: 'store', patch: { outputPath: resultsPath(ctx.settings.outDir) }, detail: { file: 'results.jsonl' } })));
      for (const item of items) ctx.events.emit('transition', item, 'succeeded');
    });
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
