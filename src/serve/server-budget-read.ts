// The server-wide --budget's figures read from the batches' journals: every batch that has a job (a failed
// batch sent nothing). A final batch's money never changes, so it is read once and kept.
import { serverBudget, type BatchMoney, type ServerBudget } from '../core/server-budget.js';
import { BATCH_STATUSES, isLive } from './batch-states.js';
import { jobSpend } from './batch-journal.js';
import type { ServeContext } from './context.js';

export class ServerBudgetReader {
  private readonly finalMoney = new Map<string, BatchMoney>();

  constructor(private readonly ctx: Pick<ServeContext, 'catalog' | 'dataDir' | 'journal' | 'budgetUsd'>) {}

  /** The figures now; undefined when the server has no --budget. */
  async read(): Promise<ServerBudget | undefined> {
    const total = this.ctx.budgetUsd;
    if (total === undefined) return undefined;
    const money: BatchMoney[] = [];
    for (const row of await this.ctx.catalog.batchesIn(BATCH_STATUSES)) {
      if (row.status === 'failed') continue;
      const kept = this.finalMoney.get(row.id);
      if (kept) {
        money.push(kept);
        continue;
      }
      const spend = await jobSpend(this.ctx, row.id);
      if (!spend) continue;
      money.push(spend);
      if (!isLive(row.status)) this.finalMoney.set(row.id, spend);
    }
    return serverBudget(total, money);
  }
}
