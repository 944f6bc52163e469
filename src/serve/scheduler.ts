// The batches' lifecycle in the server: validating -> in_progress -> finalizing -> completed (or failed,
// expired, cancelling -> cancelled). Every live batch's job runs here, all of them under one set of send
// slots (--concurrency, each batch in turn). The catalog holds each step, so a restarted server takes
// every live batch up where it was; the job's journal holds the rest, as for `gbatch run`.
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../core/clock.js';
import { serverBudgetText } from '../core/server-budget.js';
import { isDatabaseUrl } from '../journal/index.js';
import { BATCH_URLS } from '../manifest/jsonl-line.js';
import { requestPacers, type RequestPacers, FairSendSlots, cancelRows, StartRefused } from '../pipeline/index.js';
import {
  jobCommitted,
  jobCounts,
  jobLineCounts,
  jobLiveRunners,
  jobStoppedAtBalance,
  jobUsage,
  markJobFinal,
  unfinished,
  withJobStore,
} from './batch-journal.js';
import { batchOf, rowOf, type Batch } from './batch-record.js';
import {
  BATCH_STATUSES,
  canMove,
  ENDING_MOVE,
  hasFiles,
  isFinal,
  isRunning,
  LIVE_STATUSES,
  moved,
  type BatchMove,
  type BatchStatus,
} from './batch-states.js';
import { BalanceStop } from './balance-stop.js';
import { seconds, type ServeContext } from './context.js';
import { errorFileId, outputFileId } from './ids.js';
import { runBatch } from './run-batch.js';
import { ServerBudgetReader } from './server-budget-read.js';
import { checkInput } from './validate-input.js';

/** The least wait before a batch's job is run again while work remains. */
const RETRY_MIN_MS = 250;

/** What an attempt to end a batch came to: see BatchScheduler.finalize. */
type Finalized = 'ended' | 'work' | 'wait';

interface LiveBatch {
  done: Promise<void>;
  stop: AbortController;
  /** Aborted (its reason the job's cancellation) once the batch's job is cancelled: its run sends nothing more. */
  cancelled: AbortController;
}

export class BatchScheduler {
  private readonly live = new Map<string, LiveBatch>();
  /** What each final batch committed (settled + reserved), read once. */
  private readonly settled = new Map<string, number>();
  private readonly slots: FairSendSlots;
  private readonly pacers: RequestPacers | undefined;
  private readonly closing = new AbortController();
  private readonly balance = new BalanceStop();
  private readonly serverBudget: ServerBudgetReader;
  private watching: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: ServeContext) {
    this.slots = new FairSendSlots(ctx.concurrency);
    this.serverBudget = new ServerBudgetReader(ctx);
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
    const cancelled = new AbortController();
    const done = this.drive(batchId, stop.signal, cancelled.signal)
      .catch((err: unknown) => this.ctx.log(`${batchId}: stopped: ${(err as Error).message}`))
      .finally(() => this.live.delete(batchId));
    this.live.set(batchId, { done, stop, cancelled });
  }

  /**
   * The client's cancel, durable before it is answered: the catalog says `cancelling` (every run of the batch,
   * on any server or after a restart, reads it once the job's rows are in and before its first send: see
   * work), and a job that has rows is cancelled in its journal (pending rows are never sent; the journal
   * refuses any later intent) and this server's run of it stops sending at once. The batch as it is then:
   * `cancelling`, or the status that turned the cancel down (finalizing, or final).
   */
  async cancel(batch: Batch): Promise<Batch> {
    for (let current = batch; canMove(current.status, 'cancel');) {
      const cancelling = await this.move(current, 'cancel');
      if (cancelling) {
        await this.cancelJob(batch.id);
        this.start(batch.id);
        return cancelling;
      }
      // Its status moved meanwhile (validated, finalizing, or a finalizing batch back at work): read again.
      current = await this.load(batch.id);
      if (!canMove(current.status, 'cancel')) return current;
    }
    return batch;
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

  /** The batch moved (see batch-states.ts) and saved, unless its status changed meanwhile: undefined then. */
  private async move(batch: Batch, move: BatchMove, fields: Partial<Batch['fields']> = {}): Promise<Batch | undefined> {
    const next = moved(batch, move, seconds(this.ctx.now()), fields);
    return (await this.save(next.batch, next.from)) ? next.batch : undefined;
  }

  private async drive(batchId: string, stop: AbortSignal, cancelled: AbortSignal): Promise<void> {
    let batch = await this.load(batchId);
    const input = await this.ctx.catalog.file(batch.fields.input_file_id);
    const inputPath = input ? await this.ctx.files.local(String(input.record.path)) : undefined;
    if (batch.status === 'validating') {
      const check = inputPath
        ? await checkInput(inputPath, batch.fields.endpoint, this.ctx.pricing, batch.fields.budget_usd ?? undefined)
        : {
            requests: 0,
            errors: [{ code: 'invalid_file', message: 'the input file was deleted', param: null, line: 0 }],
            model: null,
          };
      const next =
        check.errors.length > 0
          ? await this.move(batch, 'refuse', { errors: { object: 'list', data: check.errors } })
          : await this.move(batch, 'validate', {
              ...(check.model === null ? {} : { model: check.model }),
              request_counts: { total: check.requests, completed: 0, failed: 0 },
            });
      // A cancel that came meanwhile wins: the batch is then cancelled below, nothing sent; its requests
      // are counted all the same (each has its line in the error file).
      if (!next) {
        batch = await this.load(batchId);
        if (batch.status === 'cancelling' && check.errors.length === 0) {
          const counted: Batch = {
            ...batch,
            fields: { ...batch.fields, request_counts: { total: check.requests, completed: 0, failed: 0 } },
          };
          if (await this.save(counted, ['cancelling'])) batch = counted;
        }
      } else batch = next;
      if (batch.status === 'failed') {
        this.ctx.log(
          `${batchId}: input failed validation: ${check.errors.length} error(s), nothing sent${check.errors[0] ? `; the first: ${check.errors[0].message}` : ''}`,
        );
        return;
      }
      if (batch.status === 'in_progress' && this.ctx.budgetUsd !== undefined)
        this.ctx.log(`${batchId}: in_progress: ${check.requests} request(s)${await this.serverBudgetNote()}`);
    }
    for (let next: Finalized = 'work'; ;) {
      // While another server's run of the batch is on, this one only waits to end the batch: a run of its
      // own would have nothing to send and would hold the other server's end back in turn.
      if (next === 'work') {
        const worked = await this.work(batch, inputPath, stop, cancelled);
        if (!worked) return;
        batch = worked;
      }
      if (isFinal(batch.status)) break;
      const before = next;
      next = await this.finalize(batch);
      if (next === 'ended') break;
      if (next === 'wait' && before !== 'wait')
        this.ctx.log(`${batchId}: another run of the batch is on: its end waits for it`);
      // Work remains (another server's run took rows up again: a run puts deferred rows back to pending when
      // it starts), or another run is still on.
      await sleep(RETRY_MIN_MS, undefined, { signal: stop }).catch(() => undefined);
      if (stop.aborted) return;
      batch = await this.load(batchId);
    }
    this.balance.forget(batchId);
  }

  /** Runs the batch's job until no work is left (or the window passed): the batch then; undefined if stopped. */
  private async work(
    from: Batch,
    input: string | undefined,
    stop: AbortSignal,
    cancelled: AbortSignal,
  ): Promise<Batch | undefined> {
    const batchId = from.id;
    let batch = from;
    while (isRunning(batch.status)) {
      if (input === undefined) throw new Error(`the input file ${batch.fields.input_file_id} is gone`);
      const run = {
        input,
        batch,
        slots: this.slots,
        pacers: this.pacers,
        stop,
        cancelStop: cancelled,
        startGate: () => this.startGate(batchId),
      };
      try {
        // The job's rows first (each request then has its line, whatever ends it), then the catalog read again,
        // before any run that may send: a cancel answered before this read is seen here and written into the
        // job's journal; one answered after it found the job's rows and wrote it there itself (cancel).
        if (!(await jobCounts(this.ctx, batchId))) {
          // No budget: one kept by the job would hold for the runs after it (they send with theirs).
          await runBatch(this.ctx, { ...run, budgetUsd: undefined, ingestOnly: true });
          batch = await this.load(batchId);
        }
        if (batch.status === 'cancelling') await this.cancelJob(batchId);
        const expired = this.ctx.now() >= batch.fields.expires_at * 1000;
        const budget = expired || !isRunning(batch.status) ? 'none' : await this.budgetFor(batch);
        if (budget !== 'none' && budget !== 'wait') {
          try {
            const result = await runBatch(this.ctx, {
              ...run,
              batch,
              budgetUsd: budget.usd,
              balanceStop: this.balance.signalFor(batchId),
              onBalanceRanOut: () => this.balanceRanOut(batchId),
            });
            // Another server's batch got the 402 (the job's runners share the stop through the journal); a run
            // this server stopped itself is no news (it would stop the batches created since).
            if (result.stopReason === 'balance' && !this.balance.isStopped(batchId)) this.balanceRanOut(batchId);
          } finally {
            this.balance.runEnded(batchId);
          }
        }
      } catch (err) {
        // A run turned away at its gate (another server is ending the batch) is read again below, as is one
        // that could not start or stopped on an error (the journal busy, out of reach).
        if (err instanceof StartRefused) this.ctx.log(`${batchId}: ${err.message}`);
        else this.ctx.log(`${batchId}: the run stopped: ${(err as Error).message}; trying again`);
      }
      if (stop.aborted) return undefined;
      batch = await this.load(batchId);
      const counts = await jobCounts(this.ctx, batchId);
      const left = counts ? unfinished(counts) : batch.fields.request_counts.total;
      if (left === 0 || this.ctx.now() >= batch.fields.expires_at * 1000) break;
      // Work remains (the gateway out of reach, a download that failed): the run is tried again.
      await sleep(Math.max(this.ctx.pollIntervalS * 1000, RETRY_MIN_MS), undefined, { signal: stop }).catch(
        () => undefined,
      );
      if (stop.aborted) return undefined;
      batch = await this.load(batchId);
    }
    return batch;
  }

  /**
   * The gateway's balance ran out (a 402 to `batchId`'s run, or to another server's run of it): every
   * batch live here stops sending at once, and (a database journal) every live batch's job is stopped
   * for the runners of every server, as runners of one job stop each other at a 402.
   */
  private balanceRanOut(batchId: string): void {
    if (!this.balance.trip(this.live.keys())) return;
    this.ctx.log(
      `${batchId}: the gateway's balance ran out (402): no batch sends more; their unsent requests end budget_exceeded`,
    );
    if (isDatabaseUrl(this.ctx.journal))
      void this.stopEveryJob().catch((err: unknown) =>
        this.ctx.log(`could not stop the other servers' batches at the 402: ${(err as Error).message}`),
      );
  }

  private async stopEveryJob(): Promise<void> {
    for (const row of await this.ctx.catalog.batchesIn(LIVE_STATUSES))
      await withJobStore(this.ctx, row.id, (journal) => journal.coordination.stopSubmissions('balance'));
  }

  /**
   * finalizing, then the final status with the counts and the ids of the files that have lines: 'ended'
   * (also when another server ended it). Otherwise nothing is written and a `finalizing` batch is back at
   * work: 'work' when work remains and the window is open, 'wait' while a run of the batch is still on
   * (another server's, which may yet change its rows).
   */
  private async finalize(batch: Batch): Promise<Finalized> {
    const end = await this.endOf(batch);
    if (end === undefined) {
      if (batch.status === 'finalizing') await this.reopen(batch);
      return 'work';
    }
    const total = batch.fields.request_counts.total;
    let current = batch;
    if (batch.status !== 'finalizing') {
      const finalizing = await this.move(batch, 'finalize');
      if (!finalizing) return 'ended';
      current = finalizing;
    }
    // A run joins the job, then asks the catalog whether the batch is live (its start gate); here the batch
    // is finalizing, then the job's runners are asked. Whichever comes second sees the other: a run that
    // joined before is waited for, one that joins after changes nothing.
    if ((await jobLiveRunners(this.ctx, batch.id)) > 0) return (await this.reopen(current)) ? 'wait' : 'ended';
    if ((await this.endOf(current)) !== end) return (await this.reopen(current)) ? 'work' : 'ended';
    const lines = await jobLineCounts(this.ctx, batch.id);
    const usage = BATCH_URLS[batch.fields.endpoint] === 'video' ? undefined : await jobUsage(this.ctx, batch.id);
    const final = moved(current, ENDING_MOVE[end], seconds(this.ctx.now()), {
      output_file_id: lines.output > 0 ? outputFileId(batch.id) : null,
      error_file_id: lines.error > 0 ? errorFileId(batch.id) : null,
      request_counts: { total, completed: lines.output, failed: total - lines.output },
      ...(usage ? { usage } : {}),
    });
    await markJobFinal(this.ctx, batch.id, end);
    // Another server sharing the journal may have ended it first: it then logged the end.
    if (!(await this.save(final.batch, final.from))) return 'ended';
    this.ctx.log(
      `${batch.id}: ${end}: ${lines.output} request(s) in the output file, ${lines.error} in the error file${await this.serverBudgetNote()}`,
    );
    return 'ended';
  }

  /** "; the server's --budget: ... spent, ... reserved, ... remaining of ..." for a log line; '' without --budget. */
  private async serverBudgetNote(): Promise<string> {
    try {
      const figures = await this.serverBudget.read();
      return figures ? `; ${serverBudgetText(figures)}` : '';
    } catch (err) {
      return `; the server's --budget could not be read: ${(err as Error).message}`;
    }
  }

  /** How the batch ends now, by its job's counts; undefined while work remains and its window is open. */
  private async endOf(batch: Batch): Promise<keyof typeof ENDING_MOVE | undefined> {
    if (batch.status === 'cancelling' || batch.fields.cancelling_at !== null) return 'cancelled';
    const counts = await jobCounts(this.ctx, batch.id);
    if ((counts ? unfinished(counts) : batch.fields.request_counts.total) === 0) return 'completed';
    return this.ctx.now() >= batch.fields.expires_at * 1000 ? 'expired' : undefined;
  }

  /** A `finalizing` batch back at work; false when it is no longer finalizing (another server ended it). */
  private async reopen(batch: Batch): Promise<boolean> {
    return (await this.move(batch, 'reopen')) !== undefined;
  }

  /**
   * A run of the batch goes on only while the batch is live in the catalog, read once the run has joined
   * the job (see finalize): a reason to stop there otherwise. Read after the join too, a 402 another
   * server's run of the batch got is seen either here or by the run itself.
   */
  private async startGate(batchId: string): Promise<string | undefined> {
    const { status } = await this.load(batchId);
    if (!isRunning(status)) return `the batch is ${status}`;
    // A batch that was live at a 402 sends no more, on whichever server runs it next (or after a restart):
    // its run still polls and downloads what the gateway accepted.
    if (await jobStoppedAtBalance(this.ctx, batchId)) this.balance.trip([batchId]);
    return undefined;
  }

  /**
   * The batch's budget for its next run: its metadata.budget_usd, within its share of the server's --budget.
   * --budget is every batch's together, on every server sharing the journal: it is handed out in the order
   * the batches were created, each taking what those before it leave (a live batch holds its share, or
   * what it committed if more; a final one what it committed: settled + reserved). Every server reads the
   * same catalog and journal, so none hands out what another did, and a batch's share only grows as those
   * before it end. 'wait' while batches before it hold all of it (one of them ending gives it back).
   */
  private async budgetFor(batch: Batch): Promise<{ usd: number | undefined } | 'wait'> {
    const own = batch.fields.budget_usd ?? undefined;
    const total = this.ctx.budgetUsd;
    if (total === undefined) return { usd: own };
    let before = 0;
    let liveBefore = false;
    for (const row of await this.ctx.catalog.batchesIn(BATCH_STATUSES)) {
      if (row.status === 'failed') continue;
      const share = Math.min(batchOf(row).fields.budget_usd ?? Infinity, Math.max(0, total - before));
      if (row.id === batch.id) return share === 0 && liveBefore ? 'wait' : { usd: share };
      if (hasFiles(row.status)) {
        let committed = this.settled.get(row.id);
        if (committed === undefined) {
          committed = await jobCommitted(this.ctx, row.id);
          this.settled.set(row.id, committed);
        }
        before += committed;
      } else {
        before += Math.max(share, await jobCommitted(this.ctx, row.id));
        liveBefore = true;
      }
    }
    return { usd: 0 };
  }

  /**
   * The batch's job cancelled in its journal, when it has one (its rows are in): pending rows are never
   * sent, the journal refuses any later intent, and this server's run of it stops sending at once.
   */
  private async cancelJob(batchId: string): Promise<void> {
    const cancel = await withJobStore(this.ctx, batchId, async (journal) => {
      const written = await journal.setJobCancel('the batch was cancelled by its client');
      if (written) await cancelRows(journal, written);
      return written;
    });
    const live = this.live.get(batchId);
    if (cancel && live && !live.cancelled.signal.aborted) live.cancelled.abort(cancel);
  }
}
