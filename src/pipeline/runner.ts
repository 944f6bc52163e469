// `gbatch run`: recover, ingest, then submit, poll, download and settle until done, stopped or out of money.
import { EventEmitter, setMaxListeners } from 'node:events';
import { systemClock, type Clock } from '../core/clock.js';
import type { PricingTable } from '../core/pricing.js';
import type { ItemState } from '../core/states.js';
import { createGatewayClient, type GatewayClient } from '../gateway/client.js';
import { preflightRun } from '../io/preflight.js';
import { CommitQueue, HEARTBEAT_MS, Journal, type LockTakeover } from '../journal/index.js';
import { BudgetGuard } from './budget-guard.js';
import type { RunContext, RunEvents, RunSettings } from './context.js';
import { Downloader } from './downloader.js';
import { exitCodeFor, EXIT } from './exit-code.js';
import { ingestManifests, type IngestOutcome } from './ingest-manifests.js';
import { Poller } from './poller.js';
import { recoverJournal, type Recovery } from './recover.js';
import { OutputStop, type OutputFailure } from './output-stop.js';
import { ResultsWriter } from './results-writer.js';
import { Submitter, type SubmitStopReason } from './submitter.js';

export interface RunConfig {
  jobName: string;
  manifests: readonly string[];
  statePath: string;
  settings: RunSettings;
  pricing: PricingTable;
  budgetUsd?: number;
  baseUrl: string;
  apiKey: string;
  skipInvalid: boolean;
  journalSync?: 'full' | 'off';
  /** How the journal's WAL is fsynced after deferred commits (tests observe it). */
  syncWal?: (walPath: string) => void;
  /** Options as given, saved with the job for `status` and `report`. */
  jobOptions: Record<string, unknown>;
  clock?: Clock;
  random?: () => number;
  /** Aborting it asks the run to stop gracefully (SIGINT/SIGTERM). */
  interrupt?: AbortSignal;
  /** Aborting it cuts requests on the wire (a second signal). */
  forceInterrupt?: AbortSignal;
  gracePeriodMs?: number;
  progressIntervalMs?: number;
  events?: EventEmitter<RunEvents>;
  gateway?: GatewayClient;
  /** The most bytes of one answer read into memory (see createGatewayClient). */
  maxResponseBytes?: number;
  /** Ingest the manifests into the journal and stop: nothing is sent. */
  ingestOnly?: boolean;
}

export interface RunResult {
  exitCode: number;
  counts: Record<ItemState, number>;
  ingest?: IngestOutcome;
  recovery?: Recovery;
  takeover?: LockTakeover;
  stopReason: SubmitStopReason | 'interrupted' | 'deadline' | 'no-wait' | 'ingested' | 'output' | undefined;
  /** The write that stopped the run (disk full, read-only, no permission), if one did. */
  outputFailure?: OutputFailure;
  spend: { reservedUsd: number; actualUsd: number };
  budgetUsd?: number;
  polls: number;
  downloadFailures: number;
  exhaustedRetries: number;
  /** Journal transactions the run's lanes committed (group commit: far fewer than transitions). */
  journalCommits: number;
}

export async function runJob(config: RunConfig): Promise<RunResult> {
  const clock = config.clock ?? systemClock;
  const events = config.events ?? new EventEmitter<RunEvents>();
  // Before the journal exists or changes and before any request: a path that cannot be used is exit 2.
  const preflight = preflightRun({ manifests: config.manifests, statePath: config.statePath, ...(config.ingestOnly ? {} : { outDir: config.settings.outDir }) });
  let journal: Journal;
  try {
    journal = Journal.open(config.statePath, { clock, sync: config.journalSync ?? 'full', ...(config.syncWal ? { syncWal: config.syncWal } : {}) });
  } catch (err) {
    preflight.undo();
    throw err;
  }
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    const takeover = journal.lock.acquire(config.statePath);
    if (takeover) events.emit('log', `taking over the journal from runner pid ${takeover.pid} (${takeover.host}), which is gone`);
    heartbeat = setInterval(() => {
      try {
        journal.lock.heartbeat();
      } catch (err) {
        // A missed beat (the journal busy past its timeout) is harmless; the next one refreshes it.
        events.emit('log', `journal heartbeat skipped: ${(err as Error).message}`);
      }
    }, HEARTBEAT_MS);
    heartbeat.unref();

    const recovery = recoverJournal(journal, config.settings);
    for (const line of recovery.messages) events.emit('log', line);

    const ingest = await ingestManifests(journal, config.manifests, config.pricing, config.skipInvalid);
    if (!ingest.ok) {
      return { ...emptyResult(journal, EXIT.usage, config), ingest, recovery, takeover };
    }
    journal.saveJob({ name: config.jobName, manifest: config.manifests.join(','), options: config.jobOptions });
    if (config.ingestOnly) return { ...emptyResult(journal, EXIT.ok, config), ingest, recovery, takeover, stopReason: 'ingested' };
    releaseDeferred(journal);

    const { concurrency, pollConcurrency, downloadConcurrency } = config.settings;
    const gateway = config.gateway ?? createGatewayClient({
      baseUrl: config.baseUrl, apiKey: config.apiKey, clock, random: config.random,
      ...(config.maxResponseBytes !== undefined ? { maxResponseBytes: config.maxResponseBytes } : {}),
      // Every lane's requests can be in flight at once; fewer sockets would silently cap --concurrency.
      connections: concurrency + pollConcurrency + downloadConcurrency,
    });
    try {
      return await drive(journal, gateway, config, clock, events, ingest, recovery, takeover);
    } finally {
      if (!config.gateway) await gateway.close();
    }
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    journal.lock.release();
    journal.close();
  }
}

async function drive(
  journal: Journal, gateway: GatewayClient, config: RunConfig, clock: Clock, events: EventEmitter<RunEvents>,
  ingest: IngestOutcome, recovery: Recovery, takeover: LockTakeover | undefined,
): Promise<RunResult> {
  const ctx: RunContext = {
    journal, gateway, clock, events, pricing: config.pricing, settings: config.settings,
    commits: new CommitQueue(journal),
    budget: new BudgetGuard(config.budgetUsd, journal.spend()),
    submitStop: unlimited(new AbortController()), stop: unlimited(new AbortController()), hardStop: unlimited(new AbortController()),
    random: config.random ?? Math.random,
  };
  let stopReason: RunResult['stopReason'];
  const stopAll = (reason: 'interrupted' | 'deadline'): void => {
    stopReason ??= reason;
    ctx.submitStop.abort(reason);
    ctx.stop.abort(reason);
  };
  const cleanups: Array<() => void> = [];
  const onInterrupt = (): void => {
    events.emit('log', 'stopping: no new submissions; waiting for requests in flight (signal again to cut them)');
    stopAll('interrupted');
    const grace = setTimeout(() => ctx.hardStop.abort('grace period over'), config.gracePeriodMs ?? 10_000);
    grace.unref();
    cleanups.push(() => clearTimeout(grace));
  };
  listen(config.interrupt, onInterrupt, cleanups);
  listen(config.forceInterrupt, () => { stopAll('interrupted'); ctx.hardStop.abort('forced'); }, cleanups);
  const { deadlineAt } = config.settings;
  if (deadlineAt !== undefined) {
    const deadlineWait = new AbortController();
    clock.sleep(Math.max(0, deadlineAt - clock.now()), deadlineWait.signal).then(
      () => { events.emit('log', 'deadline reached: leaving the remaining tasks running for a later run'); stopAll('deadline'); },
      () => undefined,
    );
    cleanups.push(() => deadlineWait.abort());
  }

  const ticker = setInterval(() => events.emit('progress', {
    counts: journal.counts(), spend: ctx.budget.current(), budgetUsd: config.budgetUsd, pausedUntil: gateway.pausedUntil(),
  }), config.progressIntervalMs ?? 2000);
  ticker.unref();
  cleanups.push(() => clearInterval(ticker));

  const outputs = new OutputStop(ctx);
  const downloader = new Downloader(ctx, outputs);
  const results = new ResultsWriter(ctx, undefined, undefined, outputs);
  const poller = new Poller(ctx, (item) => downloader.add(item));
  const submitter = new Submitter(ctx, {
    accepted: (item) => poller.add(item),
    completed: () => results.markDirty(),
    // While the last requests are in flight, the answers so far go to disk: the final rebuild after
    // them then only appends the tail.
    claimedAll: () => void results.flush(),
  });

  try {
    const inFlight = journal.list(['submitted', 'running']);
    ctx.budget.adopt(inFlight.length);
    if (!config.settings.noWait) {
      for (const item of inFlight) poller.add(item);
      for (const item of journal.iterate({ states: ['succeeded'], kinds: ['video'] })) downloader.add(item);
    }
    if (journal.counts().succeeded > 0) results.markDirty();

    if (config.settings.noWait) {
      await submitter.run();
      stopReason ??= 'no-wait';
    } else {
      const polling = poller.run();
      let submitFailure: unknown;
      try {
        await submitter.run();
      } catch (err) {
        submitFailure = err;
        ctx.stop.abort('internal error');
      }
      poller.producersDone();
      await polling;
      if (submitFailure !== undefined) throw submitFailure;
      await downloader.idle();
    }
    journal.syncDeferred(); // what the results, the report and the exit code say is on disk first
    await results.close();
    const counts = journal.counts();
    const outputFailure = outputs.failure;
    const stoppedEarly = stopReason !== undefined || submitter.exhaustedCount > 0 || outputFailure !== undefined;
    return {
      // A refused key is bad configuration (exit 2), whatever else the counts say.
      exitCode: submitter.reason === 'auth' || poller.authRefused ? EXIT.usage : outputExitCode(exitCodeFor({ counts, stoppedEarly }), outputFailure),
      counts, ingest, recovery, takeover,
      ...(outputFailure ? { outputFailure } : {}),
      stopReason: poller.authRefused ? 'auth' : outputFailure ? 'output' : submitter.reason ?? stopReason,
      spend: journal.spend(), budgetUsd: config.budgetUsd,
      polls: poller.pollCount, downloadFailures: downloader.failedCount, exhaustedRetries: submitter.exhaustedCount,
      journalCommits: ctx.commits.commitCount,
    };
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

/**
 * After a failed write the outputs are behind the journal, so the run is never "done" (0/1): 75 to come
 * back once there is room, 2 for a path that is plainly wrong; an uncertain row (4) or the budget (3) still
 * outranks 75.
 */
function outputExitCode(code: number, failure: OutputFailure | undefined): number {
  if (!failure) return code;
  if (failure.exitCode === EXIT.usage) return EXIT.usage;
  return code === EXIT.ok || code === EXIT.someFailed ? EXIT.inFlight : code;
}

/** Every request in flight listens on these signals: thousands of listeners are expected, not a leak. */
function unlimited(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}

function listen(signal: AbortSignal | undefined, handler: () => void, cleanups: Array<() => void>): void {
  if (!signal) return;
  if (signal.aborted) {
    handler();
    return;
  }
  signal.addEventListener('abort', handler, { once: true });
  cleanups.push(() => signal.removeEventListener('abort', handler));
}

/** Deferred rows get their chance again on every run. */
function releaseDeferred(journal: Journal): void {
  const deferred = journal.list(['deferred']);
  journal.apply(deferred.map((item) => ({ id: item.id, event: 'release' as const, detail: { reason: 'new run' } })));
}

function emptyResult(journal: Journal, exitCode: number, config: RunConfig): RunResult {
  return {
    exitCode, counts: journal.counts(), stopReason: undefined, spend: journal.spend(), budgetUsd: config.budgetUsd,
    polls: 0, downloadFailures: 0, exhaustedRetries: 0, journalCommits: 0,
  };
}
