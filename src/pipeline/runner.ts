// `gbatch run`: recover, ingest, then submit, poll, download and settle until done, stopped or out of money.
import { EventEmitter, setMaxListeners } from 'node:events';
import { systemClock, type Clock } from '../core/clock.js';
import type { PricingTable } from '../core/pricing.js';
import type { ItemState } from '../core/states.js';
import { createGatewayClient, type GatewayClient } from '../gateway/client.js';
import { CommitQueue, HEARTBEAT_MS, Journal, LockLostError, type LockTakeover } from '../journal/index.js';
import { BudgetGuard } from './budget-guard.js';
import type { RunContext, RunEvents, RunSettings } from './context.js';
import { Downloader } from './downloader.js';
import { exitCodeFor, EXIT } from './exit-code.js';
import { ingestManifests, type IngestOutcome } from './ingest-manifests.js';
import { JournalGuard, type JournalLoss } from './journal-guard.js';
import { journalLossReport, lossWords, saveJournalCopy } from './journal-rescue.js';
import { Poller } from './poller.js';
import { recoverJournal, type Recovery } from './recover.js';
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
  /** Ingest the manifests into the journal and stop: nothing is sent. */
  ingestOnly?: boolean;
}

export interface RunResult {
  exitCode: number;
  counts: Record<ItemState, number>;
  ingest?: IngestOutcome;
  recovery?: Recovery;
  takeover?: LockTakeover;
  stopReason: SubmitStopReason | 'interrupted' | 'deadline' | 'no-wait' | 'ingested' | JournalLossReason | undefined;
  /** The journal's file was deleted or replaced, or its lock lost, mid-run: what the operator must know. */
  journalLost?: { lines: string[]; savedCopy?: string };
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
  const journal = Journal.open(config.statePath, { clock, sync: config.journalSync ?? 'full', ...(config.syncWal ? { syncWal: config.syncWal } : {}) });
  let heartbeat: NodeJS.Timeout | undefined;
  const halt = new AbortController();
  const guard = new JournalGuard(config.statePath, (loss) => {
    if (loss.kind === 'lock-lost') {
      journal.fence(new LockLostError(config.statePath));
      journal.lock.forget();
    }
    events.emit('log', loss.kind === 'lock-lost' ? lockLostLine(config.statePath)
      : `the journal at ${config.statePath} was ${lossWords(loss.kind)} while running: stopping all submissions now`);
    halt.abort(loss);
  });
  try {
    const takeover = journal.lock.acquire(config.statePath);
    if (takeover) events.emit('log', `taking over the journal from runner pid ${takeover.pid} (${takeover.host}), which is gone`);
    heartbeat = setInterval(() => {
      guard.check();
      if (guard.lost) return;
      try {
        if (!journal.lock.heartbeat()) guard.lose({ kind: 'lock-lost' });
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
      // Every lane's requests can be in flight at once; fewer sockets would silently cap --concurrency.
      connections: concurrency + pollConcurrency + downloadConcurrency,
    });
    try {
      let result: RunResult | undefined;
      try {
        result = await drive(journal, gateway, config, clock, events, ingest, recovery, takeover, guard, halt.signal);
      } catch (err) {
        if (err instanceof LockLostError) guard.lose({ kind: 'lock-lost' });
        if (!guard.lost) throw err; // after a loss, a lane's failed write is the loss's doing, not a bug
      }
      guard.check(); // a loss in the run's last moments must not pass for "done"
      if (guard.lost) return endLost(journal, config, guard.lost, result ?? emptyResult(journal, EXIT.usage, config));
      return result!;
    } finally {
      if (!config.gateway) await gateway.close();
    }
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    journal.lock.release();
    journal.close();
    if (guard.lost && guard.lost.kind !== 'lock-lost') guard.removeOwnSidecars();
  }
}

async function drive(
  journal: Journal, gateway: GatewayClient, config: RunConfig, clock: Clock, events: EventEmitter<RunEvents>,
  ingest: IngestOutcome, recovery: Recovery, takeover: LockTakeover | undefined, guard: JournalGuard, halt: AbortSignal,
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
  listen(halt, () => {
    const loss = halt.reason as JournalLoss;
    stopReason = loss.kind === 'lock-lost' ? 'lock-lost' : 'journal-lost';
    ctx.submitStop.abort(stopReason);
    ctx.stop.abort(stopReason);
    if (loss.kind === 'lock-lost') ctx.hardStop.abort(stopReason); // the rows are another runner's now
  }, cleanups);
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

  const downloader = new Downloader(ctx);
  const results = new ResultsWriter(ctx);
  const poller = new Poller(ctx, (item) => downloader.add(item));
  const submitter = new Submitter(ctx, {
    accepted: (item) => poller.add(item),
    completed: () => results.markDirty(),
    // While the last requests are in flight, the answers so far go to disk: the final rebuild after
    // them then only appends the tail.
    claimedAll: () => void results.flush(),
    beforeSubmit: () => guard.checkSoon(),
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
    const stoppedEarly = stopReason !== undefined || submitter.exhaustedCount > 0;
    return {
      // A refused key is bad configuration (exit 2), whatever else the counts say.
      exitCode: submitter.reason === 'auth' || poller.authRefused ? EXIT.usage : exitCodeFor({ counts, stoppedEarly }),
      counts, ingest, recovery, takeover,
      stopReason: poller.authRefused ? 'auth' : submitter.reason ?? stopReason,
      spend: journal.spend(), budgetUsd: config.budgetUsd,
      polls: poller.pollCount, downloadFailures: downloader.failedCount, exhaustedRetries: submitter.exhaustedCount,
      journalCommits: ctx.commits.commitCount,
    };
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

type JournalLossReason = 'journal-lost' | 'lock-lost';

function lockLostLine(statePath: string): string {
  return new LockLostError(statePath).message;
}

/** The end of a run whose journal stopped being its own: the truth for the operator, and the exit code. */
function endLost(journal: Journal, config: RunConfig, loss: JournalLoss, base: RunResult): RunResult {
  if (loss.kind === 'lock-lost') {
    return { ...base, exitCode: EXIT.inFlight, stopReason: 'lock-lost', journalLost: { lines: [lockLostLine(config.statePath)] } };
  }
  journal.lock.release(); // the saved copy must not name this (soon dead) process as its runner
  const copy = saveJournalCopy(journal, config.statePath, Date.now());
  return {
    ...base, exitCode: EXIT.usage, stopReason: 'journal-lost', counts: journal.counts(),
    journalLost: { lines: journalLossReport(journal, config.statePath, loss.kind, copy), ...('path' in copy ? { savedCopy: copy.path } : {}) },
  };
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
  // Read and written under one write lock: an operator's `resolve` cannot move a row in between.
  journal.db.transaction(() => {
    const deferred = journal.list(['deferred']);
    journal.apply(deferred.map((item) => ({ id: item.id, event: 'release' as const, detail: { reason: 'new run' } })));
  }).immediate();
}

function emptyResult(journal: Journal, exitCode: number, config: RunConfig): RunResult {
  return {
    exitCode, counts: journal.counts(), stopReason: undefined, spend: journal.spend(), budgetUsd: config.budgetUsd,
    polls: 0, downloadFailures: 0, exhaustedRetries: 0, journalCommits: 0,
  };
}
