// One run of a batch's job: the job `gbatch run` would run on the input file, named by the batch id, in
// the batch's journal, under the server's options, its sends sharing the server's slots.
import { EventEmitter } from 'node:events';
import { runResolvedJob, type RunJobResult } from '../api/run-job.js';
import { resolveJob } from '../job/job.js';
import type { RunFlags } from '../job/run-options.js';
import type { RunEvents } from '../pipeline/context.js';
import type { SendSlots } from '../pipeline/pacing/send-slots.js';
import type { RequestPacers } from '../pipeline/pacing/request-pacers.js';
import { isDatabaseUrl } from '../journal/index.js';
import { DEFAULT_RETRY_DELAY } from '../core/auto-retry.js';
import { positiveKnob } from '../core/test-knob.js';
import type { Batch } from './batch-record.js';
import { jobJournal, type ServeContext } from './context.js';
import { inBatchApiWords } from './log-words.js';

export interface BatchRun {
  input: string;
  batch: Batch;
  /** What the gateway may bill for the batch in all (its own budget under the server's), or none. */
  budgetUsd: number | undefined;
  slots: SendSlots;
  /** The server's --rpm pacers (SQLite: one process paces every batch), or none. */
  pacers: RequestPacers | undefined;
  stop: AbortSignal;
  /** Only record the input's rows in the journal, send nothing (a batch cancelled before its first run). */
  ingestOnly?: boolean;
  /** Aborted when another batch's run got the gateway's 402: this run stops sending too. */
  balanceStop?: AbortSignal;
  /** Aborted, its reason the job's cancellation, when this server cancelled the batch's job: the run stops sending. */
  cancelStop?: AbortSignal;
  /** Called at once (before another request may leave) when one of this run's submissions is answered 402. */
  onBalanceRanOut?: () => void;
  /** Asked once the run has joined the batch's job, before it changes a row: a reason not to go on. */
  startGate?: () => Promise<string | undefined>;
}

export async function runBatch(ctx: ServeContext, run: BatchRun): Promise<RunJobResult> {
  const { batch } = run;
  const flags: Partial<RunFlags> = {
    journal: jobJournal(ctx, batch.id),
    out: ctx.files.batchOut(batch.id),
    ...(ctx.s3Endpoint !== undefined ? { 's3-endpoint': ctx.s3Endpoint } : {}),
    ...(ctx.s3PathStyle ? { 's3-path-style': true } : {}),
    concurrency: ctx.concurrency,
    'poll-interval': ctx.pollIntervalS,
    // Validation let no invalid line through; a batch cancelled before it ended ingests them as invalid.
    'skip-invalid': true,
    // Tests shorten the wait before a --retry-failed retry (30 s) as they shorten serve's minute.
    'retry-backoff':
      ctx.retryBackoffS ??
      positiveKnob(ctx.env, 'GBATCH_SERVE_TEST_RETRY_BACKOFF_S', DEFAULT_RETRY_DELAY.baseDelayMs / 1000),
    ...(ctx.retryFailed !== undefined ? { 'retry-failed': ctx.retryFailed } : {}),
    ...(ctx.pricingFile !== undefined ? { pricing: ctx.pricingFile } : {}),
    ...(run.budgetUsd !== undefined ? { budget: run.budgetUsd } : {}),
    // On a database the journal paces the account for every runner of every job: --rpm goes to each run.
    ...(ctx.rpm !== undefined && isDatabaseUrl(ctx.journal) ? { rpm: ctx.rpm } : {}),
    ...(run.ingestOnly
      ? { 'ingest-only': true }
      : { deadline: new Date(batch.fields.expires_at * 1000).toISOString() }),
  };
  const job = { ...resolveJob(run.input, flags, new Date(ctx.now()), ctx.env), name: batch.id };
  const events = new EventEmitter<RunEvents>();
  events.on('log', (line) => ctx.log(`${batch.id}: ${inBatchApiWords(line)}`));
  const { onBalanceRanOut } = run;
  if (onBalanceRanOut)
    events.on('request', (exchange) => {
      if (exchange.lane === 'submit' && exchange.status === 402) onBalanceRanOut();
    });
  return runResolvedJob(job, ctx.access, {
    events,
    interrupt: run.stop,
    sendSlots: { slots: run.slots, owner: batch.id },
    ...(run.pacers ? { pacers: run.pacers } : {}),
    ...(run.balanceStop ? { balanceStop: run.balanceStop } : {}),
    ...(run.cancelStop ? { cancelStop: run.cancelStop } : {}),
    ...(run.startGate ? { startGate: run.startGate } : {}),
  });
}
