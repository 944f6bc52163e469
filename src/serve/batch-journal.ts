// What a batch's job journal says: its counts as the Batch API counts requests, and its rows.
import { existsSync } from 'node:fs';
import { setImmediate as turn } from 'node:timers/promises';
import { FINAL_BATCH_KEY } from '../core/final-batch.js';
import type { ItemState } from '../core/states.js';
import {
  isDatabaseUrl,
  openQueries,
  openStore,
  type JournalQueries,
  type JournalStore,
  type ResultRow,
} from '../journal/index.js';
import type { RequestCounts } from './batch-record.js';
import { addAnswerUsage, noUsage, type BatchUsage } from './batch-usage.js';
import { jobJournal, type ServeContext } from './context.js';
import { fileOf, type LineFile } from './result-lines.js';

const COMPLETED: readonly ItemState[] = ['downloaded'];
/**
 * While a batch runs, a request counts as failed only in a state no run moves it out of (a failed video is sent
 * again under --retry-failed, a deferred one once there is room): OpenAI's counters only grow. Once the batch is
 * final, every request without an output line is failed (the scheduler counts the batch's files then).
 */
const FAILED_FOR_GOOD: readonly ItemState[] = ['invalid', 'cancelled'];
/** States a run still works on (a video answered but not yet on disk included). */
export const UNFINISHED: readonly ItemState[] = ['pending', 'submitting', 'submitted', 'running', 'succeeded'];

/** The job's counts by state; undefined before its first run created the journal. */
export async function jobCounts(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
): Promise<Record<ItemState, number> | undefined> {
  return withJob(ctx, batchId, (journal) => journal.counts());
}

/** A live batch's request_counts: never lower than an earlier answer's (see FAILED_FOR_GOOD). */
export function requestCounts(counts: Record<ItemState, number>, total: number): RequestCounts {
  const sum = (states: readonly ItemState[]): number => states.reduce((n, s) => n + counts[s], 0);
  return { total, completed: sum(COMPLETED), failed: sum(FAILED_FOR_GOOD) };
}

export const unfinished = (counts: Record<ItemState, number>): number => UNFINISHED.reduce((n, s) => n + counts[s], 0);

/** Rows read at a time, cut at about PAGE_BYTES of bodies: an answer may be large, and only a page is ever held. */
const PAGE_ROWS = 256;
const PAGE_BYTES = 1024 * 1024;

/**
 * Every row of the batch's job in input order, in the raw form its lines are made from (bodies are spliced
 * into a line, never parsed), read a page at a time.
 */
export async function* jobRows(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
): AsyncGenerator<ResultRow> {
  const journal = await openJob(ctx, batchId);
  if (!journal) return;
  try {
    for (let after = 0; ;) {
      const page = await journal.resultRows(after, PAGE_ROWS, PAGE_BYTES, 'every');
      if (page.length === 0) return;
      yield* page;
      after = page[page.length - 1]!.seq;
    }
  } finally {
    await journal.close();
  }
}

/**
 * The tokens of the batch's answered requests, summed from their stored bodies (a video's task is not counted:
 * its usage is no Batch API usage). Other clients are served between pages.
 */
export async function jobUsage(ctx: Pick<ServeContext, 'dataDir' | 'journal'>, batchId: string): Promise<BatchUsage> {
  let usage = noUsage();
  let read = 0;
  for await (const row of jobRows(ctx, batchId)) {
    if (row.kind !== 'video' && row.response !== null && fileOf(row) === 'output')
      usage = addAnswerUsage(usage, JSON.parse(row.response) as unknown);
    if (++read % PAGE_ROWS === 0) await turn();
  }
  return usage;
}

/** The row at a position of the input, if the job holds it. */
export async function jobRow(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
  seq: number,
): Promise<ResultRow | undefined> {
  const [found] = (await withJob(ctx, batchId, (journal) => journal.resultRows(seq - 1, 1, 1, 'every'))) ?? [];
  return found?.seq === seq ? found : undefined;
}

/** How many lines each of the batch's files has, from the journal's counts (no row is read). */
export async function jobLineCounts(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
): Promise<Record<LineFile, number>> {
  const lines = { output: 0, error: 0 };
  const counts = await withJob(ctx, batchId, (journal) => journal.countsByKind());
  for (const [kind, byState] of Object.entries(counts ?? {}))
    for (const [state, n] of Object.entries(byState)) lines[fileOf({ kind, state: state as ItemState })] += n;
  return lines;
}

/** How many runners of the batch's job are alive now (of this server or another), 0 before its first run. */
export async function jobLiveRunners(ctx: Pick<ServeContext, 'dataDir' | 'journal'>, batchId: string): Promise<number> {
  const runners = await withJob(ctx, batchId, (journal) => journal.runners());
  return (runners ?? []).filter((runner) => runner.liveness.alive).length;
}

/**
 * Whether a run of the batch's job got (or was told of) the gateway's 402, as the shared journal keeps it. An
 * SQLite journal is one server's, which keeps it in memory: false there, as before the job's first run.
 */
export async function jobStoppedAtBalance(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
): Promise<boolean> {
  if (!isDatabaseUrl(ctx.journal)) return false;
  return (await withJobStore(ctx, batchId, (journal) => journal.coordination.stoppedAtBalance())) ?? false;
}

/**
 * `work` on the batch's job journal opened for writing (and closed after): undefined, with nothing done,
 * while the journal holds no job of the batch.
 */
export async function withJobStore<T>(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
  work: (journal: JournalStore) => Promise<T>,
): Promise<T | undefined> {
  const journal = await openStore(jobJournal(ctx, batchId), { job: batchId });
  try {
    return (await journal.getJob()) ? await work(journal) : undefined;
  } finally {
    await journal.close();
  }
}

/** The batch's settled and reserved money; undefined before its first run. */
export async function jobSpend(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
): Promise<{ actualUsd: number; reservedUsd: number } | undefined> {
  return withJob(ctx, batchId, (journal) => journal.spend());
}

/** What the gateway has billed and may still bill for the batch (settled + reserved), 0 before its first run. */
export async function jobCommitted(ctx: Pick<ServeContext, 'dataDir' | 'journal'>, batchId: string): Promise<number> {
  const spend = await withJob(ctx, batchId, (journal) => journal.spend());
  return spend ? spend.actualUsd + spend.reservedUsd : 0;
}

/** `read` of the batch's job journal, opened for it and closed after; undefined before its first run. */
async function withJob<T>(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
  read: (journal: JournalQueries) => Promise<T>,
): Promise<T | undefined> {
  const journal = await openJob(ctx, batchId);
  if (!journal) return undefined;
  try {
    return await read(journal);
  } finally {
    await journal.close();
  }
}

/** The batch's job journal, open; undefined (nothing left open) before its first run created the job. */
async function openJob(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
): Promise<JournalQueries | undefined> {
  const location = jobJournal(ctx, batchId);
  if (!isDatabaseUrl(location) && !existsSync(location)) return undefined;
  const journal = await openQueries(location, { job: batchId });
  try {
    if (await journal.getJob()) return journal;
  } catch (error) {
    await journal.close();
    throw error;
  }
  await journal.close();
  return undefined;
}

/**
 * Marks the batch's job final (FINAL_BATCH_KEY in its record), before the catalog says so: from then on every
 * operator command and run refuses it. Idempotent; nothing before the batch's first run.
 */
export async function markJobFinal(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batchId: string,
  status: string,
): Promise<void> {
  await withJobStore(ctx, batchId, async (journal) => {
    const job = (await journal.getJob())!;
    await journal.saveJob({
      name: job.name,
      manifest: job.manifest,
      options: { ...job.options, [FINAL_BATCH_KEY]: { batch: batchId, status } },
      budgetUsd: job.budgetUsd,
    });
  });
}
