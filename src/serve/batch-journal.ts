// What a batch's job journal says: its counts as the Batch API counts requests, and its items.
import { existsSync } from 'node:fs';
import type { ItemState } from '../core/states.js';
import { isDatabaseUrl, openQueries, type Item } from '../journal/index.js';
import type { RequestCounts } from './batch-record.js';
import { jobJournal, type ServeContext } from './context.js';

const COMPLETED: readonly ItemState[] = ['downloaded'];
const FAILED: readonly ItemState[] = ['failed', 'rejected', 'invalid', 'uncertain', 'deferred', 'cancelled'];
/** States a run still works on (a video answered but not yet on disk included). */
export const UNFINISHED: readonly ItemState[] = ['pending', 'submitting', 'submitted', 'running', 'succeeded'];

/** The job's counts by state; undefined before its first run created the journal. */
export async function jobCounts(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
): Promise<Record<ItemState, number> | undefined> {
  const location = jobJournal(ctx, batchId);
  if (!isDatabaseUrl(location) && !existsSync(location)) return undefined;
  const journal = await openQueries(location, { job: batchId });
  try {
    return (await journal.getJob()) ? await journal.counts() : undefined;
  } finally {
    await journal.close();
  }
}

export function requestCounts(counts: Record<ItemState, number>, total: number): RequestCounts {
  const sum = (states: readonly ItemState[]): number => states.reduce((n, s) => n + counts[s], 0);
  return { total, completed: sum(COMPLETED), failed: sum(FAILED) };
}

export const unfinished = (counts: Record<ItemState, number>): number => UNFINISHED.reduce((n, s) => n + counts[s], 0);

/** Rows read at a time: an answer may be large, and only a page of them is ever held. */
const PAGE_ROWS = 64;

/** Every item of the batch's job, in input order, read a page at a time. */
export async function* jobItems(ctx: Pick<ServeContext, 'dataDir' | 'journal'>, batchId: string): AsyncGenerator<Item> {
  const location = jobJournal(ctx, batchId);
  if (!isDatabaseUrl(location) && !existsSync(location)) return;
  const journal = await openQueries(location, { job: batchId });
  try {
    if (!(await journal.getJob())) return;
    yield* journal.iterate({}, PAGE_ROWS);
  } finally {
    await journal.close();
  }
}

/** What the gateway has billed and may still bill for the batch (settled + reserved), 0 before its first run. */
export async function jobCommitted(ctx: Pick<ServeContext, 'dataDir' | 'journal'>, batchId: string): Promise<number> {
  const location = jobJournal(ctx, batchId);
  if (!isDatabaseUrl(location) && !existsSync(location)) return 0;
  const journal = await openQueries(location, { job: batchId });
  try {
    if (!(await journal.getJob())) return 0;
    const spend = await journal.spend();
    return spend.actualUsd + spend.reservedUsd;
  } finally {
    await journal.close();
  }
}
