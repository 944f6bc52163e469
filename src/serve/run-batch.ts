// One run of a batch's job: the rows of its input file, named by the batch id, in the batch's journal,
// under the server's options, its sends sharing the server's slots. The run's configuration is built here
// from what a batch needs; the flags of `gbatch run` play no part.
import { EventEmitter } from 'node:events';
import { BUILTIN_PRICING_SOURCE } from '../core/pricing.js';
import { DEFAULT_RETRY_DELAY } from '../core/auto-retry.js';
import { positiveKnob } from '../core/test-knob.js';
import { deadlineWhen } from '../job/deadline.js';
import { defaultSettings, MAX_RESPONSE_BYTES } from '../job/run-config.js';
import { RUN_DEFAULTS } from '../job/run-options.js';
import { printableLocation } from '../journal/database-url.js';
import { isDatabaseUrl } from '../journal/index.js';
import {
  runJob,
  type RequestPacers,
  type RunConfig,
  type RunEvents,
  type RunResult,
  type SendSlots,
} from '../pipeline/index.js';
import type { Batch } from './batch-record.js';
import { jobJournal, type ServeContext } from './context.js';
import { batchVoice } from './batch-voice.js';
import { batchForecastLine } from './forecast-line.js';

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

export async function runBatch(ctx: ServeContext, run: BatchRun): Promise<RunResult> {
  const { batch } = run;
  const events = new EventEmitter<RunEvents>();
  events.on('log', (line) => ctx.log(`${batch.id}: ${line}`));
  events.on('forecast', (forecast, made) => {
    if (made) ctx.log(batchForecastLine(batch.id, forecast));
  });
  const { onBalanceRanOut } = run;
  if (onBalanceRanOut)
    events.on('request', (exchange) => {
      if (exchange.lane === 'submit' && exchange.status === 402) onBalanceRanOut();
    });
  const config = batchRunConfig(ctx, run, events);
  const { deadlineAt } = config.settings;
  if (deadlineAt !== undefined) ctx.log(`${batch.id}: expires at ${deadlineWhen(deadlineAt, Date.now())}`);
  return runJob(config);
}

/** The run of a batch: `run`'s defaults under the server's options, the batch's budget and completion window. */
function batchRunConfig(ctx: ServeContext, run: BatchRun, events: EventEmitter<RunEvents>): RunConfig {
  const { batch } = run;
  const statePath = jobJournal(ctx, batch.id);
  const outDir = ctx.files.batchOut(batch.id);
  const pricingSource = ctx.pricingFile ?? BUILTIN_PRICING_SOURCE;
  // Tests shorten the wait before a --retry-failed retry (30 s) as they shorten serve's minute.
  const retryBackoffS =
    ctx.retryBackoffS ??
    positiveKnob(ctx.env, 'GBATCH_SERVE_TEST_RETRY_BACKOFF_S', DEFAULT_RETRY_DELAY.baseDelayMs / 1000);
  // On a database the journal paces the account for every runner of every job: --rpm goes to each run.
  const rpm = ctx.rpm !== undefined && isDatabaseUrl(ctx.journal) ? ctx.rpm : undefined;
  const deadlineAt = run.ingestOnly ? undefined : batch.fields.expires_at * 1000;
  const settings = defaultSettings(outDir);
  return {
    jobName: batch.id,
    manifests: [run.input],
    statePath,
    pricing: ctx.pricing,
    pricingSource,
    ...(run.budgetUsd !== undefined ? { budgetUsd: run.budgetUsd } : {}),
    baseUrl: ctx.access.baseUrl,
    apiKey: ctx.access.apiKey,
    // Validation let no invalid line through; a batch cancelled before it ended ingests them as invalid.
    skipInvalid: true,
    // What the job's record keeps of the run's options (status and report show them), as `run` keeps its flags.
    jobOptions: {
      ...RUN_DEFAULTS,
      journal: printableLocation(statePath),
      out: outDir,
      ...(ctx.s3Endpoint !== undefined ? { 's3-endpoint': ctx.s3Endpoint } : {}),
      ...(ctx.s3PathStyle ? { 's3-path-style': true } : {}),
      concurrency: ctx.concurrency,
      'poll-interval': ctx.pollIntervalS,
      'skip-invalid': true,
      'retry-backoff': retryBackoffS,
      ...(ctx.retryFailed !== undefined ? { 'retry-failed': ctx.retryFailed } : {}),
      pricing: pricingSource,
      ...(run.budgetUsd !== undefined ? { budget: run.budgetUsd } : {}),
      ...(rpm !== undefined ? { rpm } : {}),
      ...(deadlineAt === undefined ? { 'ingest-only': true } : { deadline: new Date(deadlineAt).toISOString() }),
      ...(run.budgetUsd !== undefined ? { 'no-budget': false } : {}),
      source: run.input,
    },
    interrupt: run.stop,
    events,
    voice: batchVoice,
    ...(run.ingestOnly ? { ingestOnly: true } : {}),
    ...(run.startGate ? { startGate: run.startGate } : {}),
    maxResponseBytes: MAX_RESPONSE_BYTES,
    settings: {
      ...settings,
      objectStore: {
        ...(ctx.s3Endpoint !== undefined ? { endpoint: ctx.s3Endpoint } : {}),
        ...(ctx.s3PathStyle ? { pathStyle: true } : {}),
      },
      concurrency: ctx.concurrency,
      pollIntervalMs: ctx.pollIntervalS * 1000,
      retryFailed: ctx.retryFailed ?? settings.retryFailed,
      retryBackoffMs: retryBackoffS * 1000,
      rpm,
      ...(deadlineAt !== undefined ? { deadlineAt } : {}),
      sendSlots: run.slots,
      slotOwner: batch.id,
      ...(run.pacers ? { sharedPacers: run.pacers } : {}),
      ...(run.balanceStop ? { balanceStop: run.balanceStop } : {}),
      ...(run.cancelStop ? { cancelStop: run.cancelStop } : {}),
    },
  };
}
