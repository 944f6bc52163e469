// Keeps the cost history (the journal's `settled_costs`): each row the run settles as succeeded, with
// what it was billed against its estimate and its bound, is added to it. The history is derived from
// rows the journal already holds and only informs later forecasts, so it is written in batches after
// the settlements themselves: a crash loses at most a batch of history, never money.
import { billBound, boundedRequest } from '../core/bound.js';
import { roundUsd } from '../core/money.js';
import { rowLikeness } from '../core/row-likeness.js';
import type { ItemState } from '../core/states.js';
import { settlementId, type Item, type JournalHistory, type SettledCostRecord } from '../journal/index.js';
import { log, type RunContext } from './context.js';

const BATCH = 100;

export class SettledHistory {
  private pending: SettledCostRecord[] = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly onTransition = (item: Item, from: ItemState | undefined): void => this.hear(item, from);

  constructor(
    private readonly ctx: RunContext,
    private readonly history: JournalHistory,
    private readonly job: string,
  ) {
    ctx.events.on('transition', this.onTransition);
  }

  /** Writes what is held; a journal that refuses it costs the history those rows, and says so once. */
  async flush(): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    this.writing = this.writing.then(async () => {
      if (rows.length === 0) return;
      try {
        await this.history.recordSettled(rows);
      } catch (err) {
        log(this.ctx, `could not add ${rows.length} settled row(s) to the cost history: ${(err as Error).message}`);
      }
    });
    await this.writing;
  }

  stop(): void {
    this.ctx.events.off('transition', this.onTransition);
  }

  private hear(item: Item, from: ItemState | undefined): void {
    // A row booked at its reservation (unmetered) says nothing of what rows like it cost.
    if (item.state !== 'succeeded' || from === 'succeeded' || item.actualUsd === null || item.unmetered) return;
    if (item.model === null) return;
    const record = this.record(item, item.actualUsd);
    if (record === undefined) return;
    this.pending.push(record);
    if (this.pending.length >= BATCH) void this.flush();
  }

  private record(item: Item, actualUsd: number): SettledCostRecord | undefined {
    const { pricing, account, clock } = this.ctx;
    let boundUsd: number;
    try {
      boundUsd = roundUsd(
        Math.max(item.estimateUsd, billBound(item.kind, boundedRequest(item.kind, item.request).request, pricing)),
      );
    } catch {
      return undefined; // no price for it in this run's table: the run refused or settled it elsewhere
    }
    const at = clock.now();
    return {
      ...rowLikeness(item.kind, item.request),
      id: settlementId({ account, job: this.job, itemId: item.id, attempt: item.attempts, at }),
      account,
      finalResolution: item.kind === 'video' ? (item.finalResolution ?? null) : null,
      estimateUsd: item.estimateUsd,
      boundUsd,
      actualUsd,
      settledAt: at,
    };
  }
}
