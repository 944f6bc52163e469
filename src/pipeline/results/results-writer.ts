// Schedules results.jsonl rebuilds during a run. A rebuild keeps the settled prefix of the file in place
// and rewrites what follows it (lines of items past the first one still open), which may be most of the
// file while an early item stays open; so they are spaced geometrically: the next waits until as many new
// answers arrived as are already written (or the interval passed with some waiting), keeping the total
// work linear in the number of answers.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { resultsPath, writeResultsFile } from './results-file.js';
import { handedPrefix, handPrefixOn, type SettledPrefix } from './settled-prefix.js';
import { RESULTS_NAME, writeResultsObject } from './results-object.js';
import type { LaneContext } from '../context.js';
import type { OutputStop } from '../stops/output-stop.js';

/** Items moved to `downloaded` per transaction: bounded so the event loop is never held for long. */
const STORE_BATCH = 2000;

export class ResultsWriter {
  private waiting = 0;
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private flushQueued = false;
  private prefix: SettledPrefix | undefined;
  /** A rebuild's failure that is not a failed write (a bug): close() rethrows it. */
  private failure: unknown;

  constructor(
    private readonly ctx: LaneContext<'outDir'>,
    private readonly intervalMs = 5000,
    private readonly minBatch = 256,
    private readonly outputs?: OutputStop,
  ) {}

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

  /**
   * Rewrites the file if anything changed, then moves the items now on disk to `downloaded`. Never
   * rejects: a failed write stops the run through `outputs` (the answers stay `succeeded` in the
   * journal for a later run), and any other failure waits for close().
   */
  flush(): Promise<void> {
    // One rebuild waiting behind the current one covers every answer that arrives meanwhile.
    if (this.flushQueued) return this.writing;
    this.flushQueued = true;
    this.writing = this.writing
      .then(() => this.rebuild())
      .catch((err: unknown) => {
        if (!this.outputs?.handle(err, this.location())) this.failure ??= err;
      });
    return this.writing;
  }

  private async rebuild(): Promise<void> {
    this.flushQueued = false;
    if (this.waiting === 0 || this.failure !== undefined || this.outputs?.stopped) return;
    this.waiting = 0;
    // Runners sharing a job (and its --out) rebuild the one file in turn: a rebuild read earlier must
    // not be renamed over one read later. Each appends to the prefix the last one (on any runner)
    // recorded, once its lines are stored: a file renamed or torn since no longer matches it, and is
    // written whole.
    if (!this.ctx.journal.capabilities.sharedRunners) return this.rebuildNow();
    const shared = this.ctx.journal.coordination;
    // An object is uploaded whole each time: the runners only take turns, the last upload holding the most.
    if (this.ctx.objects) return shared.exclusive('results', () => this.rebuildNow());
    const file = `${hostname()}:${resolve(resultsPath(this.ctx.settings.outDir))}`;
    await shared.exclusive('results', async () => {
      this.prefix = (await handedPrefix(shared, file)) ?? this.prefix;
      await this.rebuildNow();
      await handPrefixOn(shared, file, this.prefix!);
    });
  }

  /** results.jsonl's path, or its s3:// URI. */
  private location(): string {
    return this.ctx.objects ? this.ctx.objects.uriOf(RESULTS_NAME) : resultsPath(this.ctx.settings.outDir);
  }

  private async rebuildNow(): Promise<void> {
    const { ctx } = this;
    let written: string[];
    if (ctx.objects) ({ written } = await writeResultsObject(ctx.journal, ctx.objects));
    else {
      const rebuild = await writeResultsFile(ctx.journal, ctx.settings.outDir, this.prefix);
      this.prefix = rebuild.prefix;
      written = rebuild.written;
    }
    this.written += written.length;
    const outputPath = this.location();
    for (let i = 0; i < written.length; i += STORE_BATCH) {
      const ids = written.slice(i, i + STORE_BATCH);
      await ctx.journal.markStored(ids, outputPath, { file: 'results.jsonl' });
      ctx.events.emit('stored', ids);
      // Between batches, the answers in flight are served.
      if (i + STORE_BATCH < written.length) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * The last rebuild, made even when no answer arrived: rows that ended otherwise (rejected, failed, a video on disk)
   * get their lines too.
   */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = Math.max(this.waiting, 1);
    await this.flush();
    if (this.failure !== undefined) throw this.failure;
  }
}
