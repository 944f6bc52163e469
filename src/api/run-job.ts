// The library's `runJob`: what `gbatch run` does, as a function. The CLI parses its argv into a job and
// calls runResolvedJob; a program calls runJob with the same job file or manifest and the same option
// names (those of `gbatch run`, as in a job file), and gets the run's result instead of a printout.
import { describeDeadline } from '../job/deadline.js';
import {
  type Progress,
  type RunEvents,
  exitMeaning,
  resultsPath,
  runJob as runPipeline,
  type RunResult,
  StartRefused,
} from '../pipeline/index.js';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { roundUsd } from '../core/money.js';
import { UsageError } from '../job/options.js';
import { createRedactor } from '../gateway/redact.js';
import { printableLocation } from '../journal/database-url.js';
import { autoRetryDue } from '../journal/auto-retry-due.js';
import { isDatabaseUrl, openQueries } from '../journal/open-store.js';
import { isObjectLocation } from '../core/object-location.js';
import { reportHeader } from '../report/model.js';
import { runAddressOf } from '../job/run-address.js';
import { readStanding } from '../job/standing-read.js';
import { standingOf, type RunRecord, type Standing } from '../core/standing.js';
import { hostname } from 'node:os';
import { gatewayAccess, resolveJob, type GatewayAccess, type ResolvedJob } from '../job/job.js';
import type { RunSummary } from '../notify/body.js';
import { RunNotifier } from '../notify/notifier.js';
import { ITEM_STATES, type ItemState } from '../core/states.js';
import { errorExit } from './error-exit.js';
import type { SendPolicy } from '../notify/policy.js';
import { displayUrl, parseNotifySettings } from '../notify/targets.js';
import { startExporter, type RunExporter } from '../metrics/run-exporter.js';
import { checkPushUrl, redactUrl } from '../metrics/push-url.js';
import { optionsToFlags, type JobOptions } from './job-options.js';
import { runConfigOf } from '../job/run-config.js';
import { EXIT_CODE } from '../core/exit-codes.js';

export interface RunJobOptions {
  /** A job file (`jobs/<name>.json`) or a manifest (`.csv`, `.jsonl`), as `gbatch run` takes. */
  job: string;
  /**
   * The options of `gbatch run` by their flag names, as a job file writes them: `{ budget: 5,
   * concurrency: 4, 'no-wait': true, notify: ['https://…'] }`. They override the job file's options.
   */
  options?: JobOptions;
  /** The gateway; default: `options['base-url']`, then GATEWAY_BASE_URL of `env`. */
  baseUrl?: string;
  /** The API key; default: GATEWAY_API_KEY of `env`. Never written anywhere (journal, logs, notifications). */
  apiKey?: string;
  /** Where GATEWAY_* and GBATCH_JOURNAL_URL are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Aborting it stops the run gracefully, as SIGINT does (exit 75 unless something outranks it). */
  signal?: AbortSignal;
  /** Aborting it cuts requests on the wire, as a second SIGINT does. */
  forceSignal?: AbortSignal;
  /** One line per notable event (recovery, deadline, a notification not delivered). */
  onLog?: (line: string) => void;
  /** Counts and spend every ~2 s while the run goes on. */
  onProgress?: (progress: Progress) => void;
  /** Bounds of each notification (defaults: 5 s per attempt, 30 s in all). */
  notifyPolicy?: Partial<SendPolicy>;
}

export interface RunJobResult extends Omit<RunResult, 'stopReason' | 'stopMessage'> {
  /** Why the run stopped early, or null when it ran to its end. */
  stopReason: NonNullable<RunResult['stopReason']> | null;
  /** One line on why it stopped early, or null. */
  stopMessage: string | null;
  job: string;
  /** The journal: an SQLite path, or a database URL without its password. */
  journal: string;
  outDir: string;
  /** What the exit code means and what to do next (the last line `gbatch run` prints). */
  meaning: string;
  /** Notifications delivered, not delivered, and attempts made (retries included). */
  notifications: { sent: number; failed: number; attempts: number };
}

/** Runs a job to its end (or its stop) and resolves with the result; usage errors throw UsageError. */
export async function runJob(options: RunJobOptions): Promise<RunJobResult> {
  const env = options.env ?? process.env;
  const job = resolveJob(options.job, optionsToFlags(options.options ?? {}, 'runJob options'), new Date(), env);
  const access = job.flags['ingest-only']
    ? { baseUrl: 'http://127.0.0.1/v1', apiKey: '' }
    : gatewayAccess(
        { 'base-url': options.baseUrl ?? job.flags['base-url'] },
        options.apiKey !== undefined
          ? { ...env, GATEWAY_API_KEY: options.apiKey, GATEWAY_API_KEY_FILE: undefined }
          : env,
      );
  const events = new EventEmitter<RunEvents>();
  if (options.onLog) events.on('log', options.onLog);
  if (options.onProgress) events.on('progress', options.onProgress);
  return runResolvedJob(job, access, {
    events,
    env,
    ...(options.signal ? { interrupt: options.signal } : {}),
    ...(options.forceSignal ? { forceInterrupt: options.forceSignal } : {}),
    ...(options.notifyPolicy ? { notifyPolicy: options.notifyPolicy } : {}),
  });
}

export interface RunHooks {
  events: EventEmitter<RunEvents>;
  /** Where GBATCH_METRICS_TOKENS is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  interrupt?: AbortSignal;
  forceInterrupt?: AbortSignal;
  notifyPolicy?: Partial<SendPolicy>;
  /** Called with the result before the end-of-run notification is awaited (the CLI prints its summary). */
  beforeNotified?: (result: RunJobResult) => Promise<void>;
}

/** A resolved job (the CLI's parse, or runJob's) run with the gateway access given. */
export async function runResolvedJob(job: ResolvedJob, access: GatewayAccess, hooks: RunHooks): Promise<RunJobResult> {
  const { flags } = job;
  // Bad notification or metrics settings are a usage error before anything is sent.
  const notifySettings = parseNotifySettings(flags);
  const pushUrl = flags['push-metrics'];
  const badPush = pushUrl === undefined ? undefined : checkPushUrl(pushUrl);
  if (badPush) throw new UsageError(badPush);
  const exporter = await startExporter(
    {
      job: job.name,
      ...(flags['metrics-port'] !== undefined ? { port: flags['metrics-port'] } : {}),
      ...(flags['metrics-host'] !== undefined ? { host: flags['metrics-host'] } : {}),
      ...(pushUrl !== undefined ? { pushUrl } : {}),
      env: hooks.env ?? process.env,
      journal: { location: job.statePath, job: job.name },
    },
    hooks.events,
  );
  const notifier = new RunNotifier(notifySettings, {
    job: job.name,
    redact: createRedactor([access.apiKey]),
    log: (line) => hooks.events.emit('log', line),
    ...(hooks.notifyPolicy ? { policy: hooks.notifyPolicy } : {}),
  });
  try {
    return await runWatched(job, access, hooks, notifier, exporter);
  } finally {
    await exporter?.close();
  }
}

/** The run, with its notifications and metrics told how it went. */
async function runWatched(
  job: ResolvedJob,
  access: GatewayAccess,
  hooks: RunHooks,
  notifier: RunNotifier,
  exporter: RunExporter | undefined,
): Promise<RunJobResult> {
  notifier.attach(hooks.events);
  const startedAt = Date.now();
  if (job.deadlineAt !== undefined) hooks.events.emit('log', describeDeadline(job.deadlineAt, startedAt));
  let result: RunResult;
  try {
    result = await runPipeline(
      runConfigOf(job, access, savedOptions(job), {
        events: hooks.events,
        ...(hooks.interrupt ? { interrupt: hooks.interrupt } : {}),
        ...(hooks.forceInterrupt ? { forceInterrupt: hooks.forceInterrupt } : {}),
      }),
    );
  } catch (err) {
    // A run that ended by throwing (the journal busy, a full disk, a bug) is news too; one its caller
    // turned away before it changed anything is not.
    if (!(err instanceof StartRefused)) {
      await exporter?.finish({ exitCode: undefined, lastOfJob: true });
      if (notifier.active) await notifier.finish(await failureSummary(job, err, startedAt));
    }
    throw err;
  } finally {
    notifier.stopWatching();
  }
  const endedAt = Date.now();
  // A run stopped by a signal (or its library equivalent) is not "done", whatever the counts say.
  const final: RunResult =
    hooks.interrupt?.aborted && result.exitCode === EXIT_CODE.ok ? { ...result, exitCode: EXIT_CODE.inFlight } : result;
  const outcome: RunJobResult = {
    ...final,
    stopReason: final.stopReason ?? null,
    stopMessage: final.stopMessage ?? null,
    job: job.name,
    journal: printableLocation(job.statePath),
    outDir: job.outDir,
    meaning: exitMeaning(final),
    notifications: notifier.stats,
  };
  if (hooks.beforeNotified) await hooks.beforeNotified(outcome);
  await exporter?.finish({ exitCode: final.exitCode, lastOfJob: final.lastOfJob !== false });
  if (notifier.active && final.lastOfJob === false) {
    // Other runners of the job are still at work: the last of them to end reports the job's end, once.
    hooks.events.emit('log', "notification (run-ended) left to the job's last runner: others are still at work on it");
    await notifier.finish(undefined);
  } else if (notifier.active) {
    await notifier.finish(await endSummary(job, outcome, startedAt, endedAt));
  }
  return outcome;
}

/** The notification's summary of a run that ended with a result. */
async function endSummary(
  job: ResolvedJob,
  outcome: RunJobResult,
  startedAt: number,
  endedAt: number,
): Promise<Omit<RunSummary, 'host'>> {
  return {
    job: job.name,
    exitCode: outcome.exitCode,
    meaning: outcome.meaning,
    stopReason: outcome.stopReason,
    counts: outcome.counts,
    spendUsd: outcome.spend.actualUsd,
    reservedUsd: outcome.spend.reservedUsd,
    budgetUsd: outcome.budgetUsd ?? null,
    ...(await endStanding(job, {
      counts: outcome.counts,
      lastRun: {
        ended: true,
        exitCode: outcome.exitCode,
        stopReason: outcome.stopReason,
        message: outcome.stopMessage,
      },
    })),
    startedAt,
    endedAt,
    journal: outcome.journal,
    outDir: job.outDir,
    resultsPath: resultsLocation(job.outDir),
    address: runAddressOf(job),
  };
}

async function failureSummary(job: ResolvedJob, err: unknown, startedAt: number): Promise<Omit<RunSummary, 'host'>> {
  const { exitCode, meaning } = errorExit(err);
  const stopReason = exitCode === EXIT_CODE.internal ? 'internal-error' : null;
  const standing = await journalStanding(job, { ended: true, exitCode, stopReason, message: meaning });
  const counts = standing?.counts ?? zeroCounts();
  return {
    job: job.name,
    exitCode,
    meaning,
    stopReason,
    counts,
    spendUsd: standing?.spend.actualUsd ?? 0,
    reservedUsd: standing?.spend.reservedUsd ?? 0,
    budgetUsd: standing?.budgetUsd ?? null,
    estimateUsd: standing?.estimateUsd ?? null,
    autoRetried: standing?.autoRetried ?? NONE_AUTO_RETRIED,
    standing:
      standing?.standing ??
      unreadStanding(job, counts, { ended: true, exitCode, stopReason, message: meaning }, NONE_AUTO_RETRIED),
    startedAt,
    endedAt: Date.now(),
    journal: printableLocation(job.statePath),
    outDir: job.outDir,
    resultsPath: null,
    address: runAddressOf(job),
  };
}

function zeroCounts(): Record<ItemState, number> {
  return Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
}

/** The options saved with the job for `status` and `report`: a notify URL only as scheme://host/…. */
function savedOptions(job: ResolvedJob): Record<string, unknown> {
  const { flags } = job;
  return {
    ...flags,
    ...(flags.journal !== undefined ? { journal: printableLocation(flags.journal) } : {}),
    ...(flags.notify && flags.notify.length > 0 ? { notify: flags.notify.map(displayUrl) } : {}),
    ...(flags['push-metrics'] !== undefined ? { 'push-metrics': redactUrl(flags['push-metrics']) } : {}),
    source: job.source,
    out: job.outDir,
    pricing: job.pricingSource,
  };
}

const NONE_AUTO_RETRIED = { failed: 0, rejected: 0 } as const;

/**
 * What a run's end reads of the journal for its notification: the estimate, the rows the policy sends again, and
 * the job's standing (from the run's own counts when the journal cannot be read).
 */
async function endStanding(
  job: ResolvedJob,
  ended: { counts: Record<ItemState, number>; lastRun: RunRecord },
): Promise<Pick<RunSummary, 'estimateUsd' | 'autoRetried' | 'standing'>> {
  const read = await journalStanding(job, ended.lastRun);
  const autoRetried = read?.autoRetried ?? NONE_AUTO_RETRIED;
  return {
    estimateUsd: read?.estimateUsd ?? null,
    autoRetried,
    standing: read?.standing ?? unreadStanding(job, ended.counts, ended.lastRun, autoRetried),
  };
}

/** The standing of a job whose journal could not be read: from the run's counts, with no orphans known. */
function unreadStanding(
  job: ResolvedJob,
  counts: Record<ItemState, number>,
  lastRun: RunRecord,
  autoRetried: { failed: number; rejected: number },
): Standing {
  return standingOf({
    counts,
    liveRunners: 0,
    cancelled: lastRun.stopReason === 'cancelled',
    lastRun,
    orphans: { waiting: 0, resendable: [] },
    autoRetried,
    address: runAddressOf(job),
  });
}

/**
 * What the job's journal holds (counts, money, budget, estimate, the failed and rejected rows the next run
 * sends again on its own under this run's --retry-failed); undefined when it cannot be read.
 */
async function journalStanding(
  job: ResolvedJob,
  lastRun: RunRecord,
): Promise<
  | {
      counts: Record<ItemState, number>;
      spend: { actualUsd: number; reservedUsd: number };
      budgetUsd: number | null;
      estimateUsd: number;
      autoRetried: { failed: number; rejected: number };
      standing: Standing;
    }
  | undefined
> {
  try {
    if (!isDatabaseUrl(job.statePath) && !existsSync(job.statePath)) return undefined;
    const journal = await openQueries(job.statePath, { job: job.name });
    try {
      const budgetUsd = (await journal.getJob())?.budgetUsd ?? null;
      const header = await reportHeader(journal, job.name, budgetUsd);
      const autoRetried = await autoRetryDue(journal, { retryFailed: job.flags['retry-failed']! });
      return {
        counts: await journal.counts(),
        spend: await journal.spend(),
        budgetUsd,
        estimateUsd: roundUsd(header.totals.estimated_usd),
        autoRetried,
        standing: await readStanding(
          journal,
          runAddressOf(job),
          lastRun,
          { pid: process.pid, host: hostname() },
          autoRetried,
        ),
      };
    } finally {
      await journal.close();
    }
  } catch {
    return undefined;
  }
}

/** results.jsonl of a run's outputs: its path when written, or its s3:// URI (written by every run that stores). */
function resultsLocation(outDir: string): string | null {
  if (isObjectLocation(outDir)) return `${outDir.replace(/\/+$/, '')}/results.jsonl`;
  return existsSync(resultsPath(outDir)) ? resultsPath(outDir) : null;
}
