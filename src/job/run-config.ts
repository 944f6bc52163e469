// The one translation of `run`'s flags (the command line over the job file, then the defaults) into the
// typed configuration the pipeline runs. `gbatch serve` builds the same configuration itself, from what a
// batch needs (serve/run-batch.ts); nothing below this file reads a flag.
import { jobCommand } from '../core/job-address.js';
import type { ModelLimits } from '../core/model-limits.js';
import { parseModelLimits } from '../core/model-limits.js';
import type { RunConfig, RunSettings } from '../pipeline/index.js';
import { DEFAULT_IF_RUNNING_TIMEOUT_S, type IfRunning } from '../pipeline/terms.js';
import { parseDrain } from './deadline.js';
import type { GatewayAccess, ResolvedJob } from './job.js';
import { UsageError } from './options.js';
import { runAddressOf } from './run-address.js';
import { metaColumnList, RUN_DEFAULTS } from './run-options.js';

/** What a run takes besides its job's flags: the process's own parts (events, signals, a start gate). */
export type RunAttachments = Pick<RunConfig, 'events' | 'interrupt' | 'forceInterrupt' | 'startGate'>;

/**
 * The pipeline's configuration of a resolved job, run with `access`; `jobOptions` is what the job's record
 * keeps of its options (the caller redacts what must not be stored).
 */
export function runConfigOf(
  job: ResolvedJob,
  access: GatewayAccess,
  jobOptions: Record<string, unknown>,
  attached: RunAttachments,
): RunConfig {
  const { flags } = job;
  return {
    jobName: job.name,
    manifests: job.manifests,
    statePath: job.statePath,
    pricing: job.pricing,
    pricingSource: job.pricingSource,
    ...(job.budgetFlag.given !== undefined ? { budgetUsd: job.budgetFlag.given } : {}),
    liftBudget: job.budgetFlag.lift,
    jobFileBudget: job.fileBudget,
    baseUrl: access.baseUrl,
    apiKey: access.apiKey,
    skipInvalid: flags['skip-invalid'] === true,
    skipChanged: flags['skip-changed'] === true,
    metaColumns: metaColumnList(flags['meta-columns']),
    journalDurability: flags['journal-sync'] === 'off' ? 'relaxed' : 'sync',
    jobOptions,
    ...attached,
    ingestOnly: flags['ingest-only'] === true,
    maxResponseBytes: flags['max-response-bytes']!,
    ifRunning: {
      policy: flags['if-running'] as IfRunning | undefined,
      timeoutMs: (flags['if-running-timeout'] ?? DEFAULT_IF_RUNNING_TIMEOUT_S) * 1000,
      deadlineAt: job.deadlineAt,
    },
    settings: {
      outDir: job.outDir,
      objectStore: {
        ...(flags['s3-endpoint'] !== undefined ? { endpoint: flags['s3-endpoint'] } : {}),
        ...(flags['s3-path-style'] ? { pathStyle: true } : {}),
      },
      concurrency: flags.concurrency!,
      pollIntervalMs: flags['poll-interval']! * 1000,
      pollConcurrency: flags['poll-concurrency']!,
      downloadConcurrency: flags['download-concurrency']!,
      maxSubmitAttempts: flags['max-attempts']!,
      resubmitUncertainText: flags['resubmit-uncertain-text'] === true,
      maxAutoResubmits: MAX_AUTO_RESUBMITS,
      retryFailed: flags['retry-failed']!,
      retryBackoffMs: flags['retry-backoff']! * 1000,
      rpm: flags.rpm,
      ...(flags['poll-rpm'] !== undefined ? { pollRpm: flags['poll-rpm'] } : {}),
      modelLimits: modelLimitsOf(flags['model-limit']),
      deadlineAt: job.deadlineAt,
      deadlineGraceMs: flags['deadline-grace']! * 1000,
      drainMs: job.drainMs,
      noWait: flags['no-wait'] === true,
      budgetMayOverrun: flags['budget-may-overrun'] === true,
      retryCancelled: jobCommand(runAddressOf(job), 'retry', '--cancelled'),
    },
  };
}

/** The settings of a run that names only where its outputs go: `run`'s defaults, typed. */
export function defaultSettings(outDir: string): RunSettings {
  return {
    outDir,
    objectStore: {},
    concurrency: RUN_DEFAULTS.concurrency,
    pollIntervalMs: RUN_DEFAULTS['poll-interval'] * 1000,
    pollConcurrency: RUN_DEFAULTS['poll-concurrency'],
    downloadConcurrency: RUN_DEFAULTS['download-concurrency'],
    maxSubmitAttempts: RUN_DEFAULTS['max-attempts'],
    resubmitUncertainText: false,
    maxAutoResubmits: MAX_AUTO_RESUBMITS,
    retryFailed: RUN_DEFAULTS['retry-failed'],
    retryBackoffMs: RUN_DEFAULTS['retry-backoff'] * 1000,
    deadlineGraceMs: RUN_DEFAULTS['deadline-grace'] * 1000,
    drainMs: parseDrain(RUN_DEFAULTS.drain),
    noWait: false,
    budgetMayOverrun: false,
  };
}

/** The most bytes of one answer a run reads into memory, unless --max-response-bytes says otherwise. */
export const MAX_RESPONSE_BYTES = RUN_DEFAULTS['max-response-bytes'];

/** How many times one uncertain text row is resent by --resubmit-uncertain-text in its life. */
export const MAX_AUTO_RESUBMITS = 3;

/** The flag's entries, already checked by the option table when parsed. */
function modelLimitsOf(values: readonly string[] | undefined): ModelLimits | undefined {
  if (!values || values.length === 0) return undefined;
  const parsed = parseModelLimits(values);
  if (typeof parsed === 'string') throw new UsageError(parsed);
  return parsed;
}
