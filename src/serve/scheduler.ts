// The batches' lifecycle in the server: validating -> in_progress -> finalizing -> completed (or failed,
// expired, cancelling -> cancelled). Every live batch's job runs here, all of them under one set of send
// slots (--concurrency, each batch in turn). The catalog holds each step, so a restarted server takes
// every live batch up where it was; the job's journal holds the rest, as for `gbatch run`.
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../core/clock.js';
import { isDatabaseUrl, openStore } from '../journal/index.js';
import { requestPacers, type RequestPacers } from '../pipeline/pacing/request-pacers.js';
import { FairSendSlots } from '../pipeline/pacing/send-slots.js';
import { cancelRows } from '../pipeline/stops/cancel-rows.js';
import { jobCommitted, jobCounts, jobItems, unfinished } from './batch-journal.js';
import { batchOf, rowOf, BATCH_STATUSES, LIVE_STATUSES, type Batch, type BatchStatus } from './batch-record.js';
import { jobJournal, seconds, type ServeContext } from './context.js';
import { errorFileId, outputFileId } from './ids.js';
import { fileOf } from './result-lines.js';
import { runBatch } from './run-batch.js';
import { checkInput } from './validate-input.js';

/** The least wait before a batch's job is run again while work remains. */
const RETRY_MIN_MS = 250;
const FINAL: ReadonlySet<string> = new Set(['completed', 'expired', 'cancelled']);

interface LiveBatch {
  done: Promise<void>;
  stop: AbortController;
}

export class BatchScheduler {
  private readonly live = new Map<string, LiveBatch>();
  /** The budget each running batch was given: the server's --budget is shared among them. */
  private readonly grants = new Map<string, number>();
  /** What each final batch committed (settled + reserved), read once. */
  private readonly settled = new Map<string, number>();
  private readonly slots: FairSendSlots;
  private readonly pacers: RequestPacers | undefined;
  private readonly closing = new AbortController();
  private watching: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: ServeContext) {
    this.slots = new FairSendSlots(ctx.concurrency);
    // SQLite: one set of pacers for every batch of the process (on a database the journal paces the account).
    this.pacers =
      ctx.rpm !== undefined && !isDatabaseUrl(ctx.journal)
        ? requestPacers({ rpm: ctx.rpm }, undefined, 'serve', systemClock)
        : undefined;
  }

  /** Takes up every batch a previous server left live. */
  async resume(): Promise<void> {
    for (const row of await this.ctx.catalog.batchesIn(LIVE_STATUSES)) this.start(row.id);
  }

  /**
   * Servers sharing a database journal share its batches: each takes up, every `everyMs`, the live batches
   * it is not running yet, and runs their jobs as runners of one job share it.
   */
  watch(everyMs: number): void {
    const scan = (): void => {
      if (this.closing.signal.aborted) return;
      this.resume()
        .catch((err: unknown) => this.ctx.log(`looking for batches: ${(err as Error).message}`))
        .finally(() => {
          if (!this.closing.signal.aborted) this.watching = setTimeout(scan, everyMs);
        });
    };
    this.watching = setTimeout(scan, everyMs);
  }

  /** Drives the batch to a final status in the background (once: a second call while it runs does nothing). */
  start(batchId: string): void {
    if (this.live.has(batchId) || this.closing.signal.aborted) return;
    const stop = new AbortController();
    const done = this.drive(batchId, stop.signal)
      .catch((err: unknown) => this.ctx.log(`${batchId}: stopped: ${(err as Error).message}`))
      .finally(() => this.live.delete(batchId));
    this.live.set(batchId, { done, stop });
  }

  /**
   * The client's cancel: the job's journal cancels it (pending rows are never sent; the live run stops
   * sending and settles what is in flight), then the batch ends cancelled.
   */
  async cancel(batch: Batch): Promise<Batch> {
    const at = seconds(this.ctx.now());
    const cancelling: Batch = { ...batch, status: 'cancelling', fields: { ...batch.fields, cancelling_at: at } };
    if (!(await this.ctx.catalog.updateBatch(rowOf(cancelling), ['validating', 'in_progress']))) return batch;
    // A live run stops sending at once; a batch not running (or not yet ingested) is cancelled by its drive.
    if (this.live.has(batch.id) && (await jobCounts(this.ctx, batch.id))) await this.cancelJob(batch.id);
    this.start(batch.id);
    return cancelling;
  }

  /** Stops every run (each leaves its job resumable, as an interrupted `gbatch run`) and waits for them. */
  async close(): Promise<void> {
    this.closing.abort();
    clearTimeout(this.watching);
    for (const live of this.live.values()) live.stop.abort();
    await Promise.all([...this.live.values()].map((live) => live.done));
  }

  private async load(batchId: string): Promise<Batch> {
    const row = await this.ctx.catalog.batch(batchId);
    if (!row) throw new Error('no such batch in the catalog');
    return batchOf(row);
  }

  private async save(batch: Batch, from?: readonly BatchStatus[]): Promise<boolean> {
    return this.ctx.catalog.updateBatch(rowOf(batch), from);
  }

  private async drive(batchId: string, stop: AbortSignal): Promise<void> {
    let batch = await this.load(batchId);
    const input = await this.ctx.catalog.file(batch.fields.input_file_id);
    if (batch.status === 'validating') {
      const check = input
        ? await checkInput(String(input.record.path), batch.fields.endpoint, this.ctx.pricing)
        : {
            requests: 0,
            errors: [{ code: 'invalid_file', message: 'the input file was deleted', param: null, line: 0 }],
          };
      const at = seconds(this.ctx.now());
      const next: Batch =
        check.errors.length > 0
          ? {
              ...batch,
              status: 'failed',
              fields: { ...batch.fields, failed_at: at, errors: { object: 'list', data: check.errors } },
            }
          : {
              ...batch,
              status: 'in_progress',
              fields: {
                ...batch.fields,
                in_progress_at: at,
                request_counts: { total: check.requests, completed: 0, failed: 0 },
              },
            };
      // A cancel that came meanwhile wins: the batch is then cancelled below, nothing sent.
      if (!(await this.save(next, ['validating']))) batch = await this.load(batchId);
      else batch = next;
      if (batch.status === 'failed') {
        this.ctx.log(`${batchId}: input failed validation: ${check.errors.length} error(s), nothing sent`);
        return;
      }
    }
    while (batch.status === 'in_progress' || batch.status === 'cancelling') {
      if (!input) throw new Error(`the input file ${batch.fields.input_file_id} is gone`);
      const run = { input: String(input.record.path), batch, slots: this.slots, pacers: this.pacers, stop };
      const expired = this.ctx.now() >= batch.fields.expires_at * 1000;
      // The job's rows exist before a cancel or the expiry ends them: each request then has its error line.
      if ((batch.status === 'cancelling' || expired) && !(await jobCounts(this.ctx, batchId)))
        await runBatch(this.ctx, { ...run, budgetUsd: 0, ingestOnly: true });
      if (batch.status === 'cancelling') await this.cancelJob(batchId);
      const budget = expired ? 'none' : await this.budgetFor(batch);
      if (budget !== 'none' && budget !== 'wait') {
        this.grants.set(batchId, budget.usd ?? Infinity);
        try {
          await runBatch(this.ctx, { ...run, budgetUsd: budget.usd });
        } catch (err) {
          // A run that could not start or stopped on an error (the journal busy, out of reach): tried again below.
          this.ctx.log(`${batchId}: the run stopped: ${(err as Error).message}; trying again`);
        } finally {
          this.grants.delete(batchId);
        }
        if (stop.aborted) return;
      }
      batch = await this.load(batchId);
      const counts = await jobCounts(this.ctx, batchId);
      const left = counts ? unfinished(counts) : batch.fields.request_counts.total;
      if (left === 0 || this.ctx.now() >= batch.fields.expires_at * 1000) break;
      // Work remains (the gateway out of reach, a download that failed): the run is tried again.
      await sleep(Math.max(this.ctx.pollIntervalS * 1000, RETRY_MIN_MS), undefined, { signal: stop }).catch(
        () => undefined,
      );
      if (stop.aborted) return;
      batch = await this.load(batchId);
    }
    if (batch.status === 'finalizing' || batch.status === 'in_progress' || batch.status === 'cancelling')
      await this.finalize(batch);
  }

  /** finalizing, then the final status with the counts and the ids of the files that have lines. */
  private async finalize(batch: Batch): Promise<void> {
    const counts = await jobCounts(this.ctx, batch.id);
    const total = batch.fields.request_counts.total;
    const left = counts ? unfinished(counts) : total;
    const end: BatchStatus =
      batch.status === 'cancelling' || batch.fields.cancelling_at !== null
        ? 'cancelled'
        : left > 0
          ? 'expired'
          : 'completed';
    let current = batch;
    if (batch.status !== 'finalizing') {
      current = { ...batch, status: 'finalizing', fields: { ...batch.fields, finalizing_at: seconds(this.ctx.now()) } };
      if (!(await this.save(current, [batch.status]))) return;
    }
    const lines = { output: 0, error: 0 };
    for await (const item of jobItems(this.ctx, batch.id)) lines[fileOf(item)]++;
    const stamp = end === 'cancelled' ? 'cancelled_at' : end === 'expired' ? 'expired_at' : 'completed_at';
    const final: Batch = {
      ...current,
      status: end,
      fields: {
        ...current.fields,
        [stamp]: seconds(this.ctx.now()),
        output_file_id: lines.output > 0 ? outputFileId(batch.id) : null,
        error_file_id: lines.error > 0 ? errorFileId(batch.id) : null,
        request_counts: { total, completed: lines.output, failed: total - lines.output },
      },
    };
    // Another server sharing the journal may have ended it first: it then logged the end.
    if (!(await this.save(final, ['finalizing']))) return;
    this.ctx.log(
      `${batch.id}: ${end}: ${lines.output} request(s) in the output file, ${lines.error} in the error file`,
    );
  }

  /**
   * The batch's budget for its next run: its metadata.budget_usd, within what the server's --budget leaves
   * once every other batch's share is counted (a running batch's budget; another's settled + reserved spend).
   * 'wait' while running batches hold all of it (one of them ending gives it back).
   */
  private async budgetFor(batch: Batch): Promise<{ usd: number | undefined } | 'wait'> {
    const own = batch.fields.budget_usd ?? undefined;
    const total = this.ctx.budgetUsd;
    if (total === undefined) return { usd: own };
    let others = 0;
    let othersLive = false;
    for (const row of await this.ctx.catalog.batchesIn(BATCH_STATUSES)) {
      if (row.id === batch.id || row.status === 'failed') continue;
      const grant = this.grants.get(row.id);
      if (grant !== undefined) {
        others += grant;
        othersLive = true;
        continue;
      }
      let committed = this.settled.get(row.id);
      if (committed === undefined) {
        committed = await jobCommitted(this.ctx, row.id);
        if (FINAL.has(row.status)) this.settled.set(row.id, committed);
      }
      others += committed;
    }
    const left = Math.max(0, total - others);
    if (left === 0 && othersLive) return 'wait';
    return { usd: Math.min(own ?? Infinity, left) };
  }

  private async cancelJob(batchId: string): Promise<void> {
    const journal = await openStore(jobJournal(this.ctx, batchId), { job: batchId });
    try {
      if (!(await journal.getJob())) return;
      const cancel = await journal.setJobCancel('the batch was cancelled by its client');
      if (cancel) await cancelRows(journal, cancel);
    } finally {
      await journal.close();
    }
  }
}
