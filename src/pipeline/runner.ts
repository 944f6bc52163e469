// `gbatch run`: recover, ingest, then submit, poll, download and settle until done, stopped or out of money.
import { sweepLeftUploads } from './results/upload-sweep.js';
import { EventEmitter, setMaxListeners } from 'node:events';
import { systemClock, type Clock } from '../core/clock.js';
import { DEFAULT_DEADLINE_GRACE_S } from '../core/deadline.js';
import type { PricingTable } from '../core/pricing.js';
import { createGatewayClient, type GatewayClient } from '../gateway/client.js';
import { createRedactor } from '../gateway/redact.js';
import { preflightRun } from '../io/preflight.js';
import { openObjectStore } from '../io/open-object-store.js';
import type { ObjectStore } from '../io/output-store.js';
import { isObjectLocation } from '../core/object-location.js';
import {
  CommitQueue,
  HEARTBEAT_MS,
  LockLostError,
  staleAfterMs,
  type Item,
  type JournalHistory,
  type JournalReports,
  type JournalRun,
  type JournalStore,
  type RunnerTakeover,
} from '../journal/index.js';
import { accountId } from '../gateway/account-id.js';
import { JobPeers } from './runners/job-peers.js';
import { announceEnding, jobEnd, joinJobNotices } from './runners/job-end.js';
import { CancelWatch } from './stops/cancel-watch.js';
import { acquireRunner, type OverlapPolicy } from './runners/overlap.js';
import { isDatabaseUrl, openStore } from '../journal/open-store.js';
import { budgetInForce, type BudgetChoice, type JobFileBudget } from '../core/job-budget.js';
import { operatorVoice } from './voice/operator-voice.js';
import type { RunVoice } from './voice/run-voice.js';
import { countsForExit } from '../core/orphans.js';
import { orphanedLine, SHOWN_ORPHANS } from './orphaned-line.js';
import type { Durability, JobCancel, JobTotals, RunEnd } from '../journal/index.js';
import { BudgetGuard } from './budget-guard.js';
import type { RunContext, RunEvents, RunSettings } from './context.js';
import { Downloader } from './lanes/downloader.js';
import { adoptDrifts, DriftReads, recheckText } from './job-drift.js';
import { exitCodeFor, EXIT } from './exit-code.js';
import { GatewayWatch } from './stops/gateway-watch.js';
import { ingestManifests, type IngestOutcome } from '../ingest/ingest-manifests.js';
import { JournalGuard, type JournalLoss } from './stops/journal-guard.js';
import { endLeaseLost, endLost, noteUnrecorded } from './ending/journal-loss-ending.js';
import type { RunResult } from './run-result.js';
import { lossWords } from './ending/journal-rescue.js';
import { refuseUnpricedHeldRows } from './lanes/held-row-prices.js';
import { LaneFailures } from './lanes/lane-failures.js';
import { ExchangeTimes } from './lanes/exchange-times.js';
import { Poller } from './lanes/poller.js';
import { recoverJournal, type Recovery } from './recover.js';
import { crashEndOf, runEndOf } from '../core/run-ending.js';
import { journalOutageLine } from '../journal/outage.js';
import { OutputStop, outputExitCode } from './stops/output-stop.js';
import { ResultsWriter } from './results/results-writer.js';
import { RunMonitor } from './monitor/run-monitor.js';
import { requestPacers } from './pacing/request-pacers.js';
import { RunStops } from './stops/run-stops.js';
import { StartRefused } from './start-refused.js';
import { ConfigError } from '../core/config-error.js';
import { finalBatchOf, finalBatchRefusal } from '../core/final-batch.js';
import { Submitter } from './lanes/submitter.js';
import type { TextBooking } from '../core/charge-check.js';
import { AutoRetries } from './lanes/auto-retries.js';
import { SettledHistory } from './settled-history.js';
import { settleStartForecast, beginStartForecast, type StartForecastTask } from './start-forecast.js';
import { DEFAULT_RETRY_DELAY } from '../core/auto-retry.js';
import { EXIT_CODE } from '../core/exit-codes.js';
import { runBackoff } from '../core/retry.js';

export interface RunConfig {
  jobName: string;
  manifests: readonly string[];
  statePath: string;
  settings: RunSettings;
  pricing: PricingTable;
  /** How messages name the pricing table (its file, or the built-in one). */
  pricingSource?: string;
  /** `--budget`: replaces the budget the job's journal holds. Without it the stored one stays in force. */
  budgetUsd?: number;
  /** `--no-budget`: lifts the job's stored budget. */
  liftBudget?: boolean;
  /**
   * What the job file says of the budget: applies at creation, or when it changed since the last run (budgetInForce).
   */
  jobFileBudget?: JobFileBudget;
  baseUrl: string;
  apiKey: string;
  skipInvalid: boolean;
  /**
   * `--skip-changed`: a row changed under an id the journal holds is skipped (its journal row withheld), not a refusal.
   */
  skipChanged?: boolean;
  /** CSV columns kept as each row's metadata, never sent (--meta-columns). */
  metaColumns?: readonly string[];
  /** How the journal's commits reach the disk (`--journal-sync`; 'relaxed' is for benchmarks only). */
  journalDurability?: Durability;
  /** How the journal's flush() makes its file durable (default: fsync; tests observe it). */
  flushFile?: (path: string) => void;
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
  /** How often the live view's `snapshot` is emitted while someone listens (default 250 ms). */
  snapshotIntervalMs?: number;
  events?: EventEmitter<RunEvents>;
  gateway?: GatewayClient;
  /** The most bytes of one answer read into memory (see createGatewayClient). */
  maxResponseBytes?: number;
  /** Ingest the manifests into the journal and stop: nothing is sent. */
  ingestOnly?: boolean;
  /** `--if-running`: what to do when the job's runner is alive (default: fail on SQLite, join on PostgreSQL). */
  ifRunning?: OverlapPolicy;
  /**
   * Asked once the run is a runner of the job (its other runners see it) and before it changes any row: a
   * reason to stop there (the run then throws StartRefused), or undefined to go on. `gbatch serve` asks its
   * catalog whether the batch is still live, so no run takes up a batch another server has just ended.
   */
  startGate?: () => Promise<string | undefined>;
  /** How the run words what an operator and a server's client are told differently (default: the operator's). */
  voice?: RunVoice;
}

export type { RunResult } from './run-result.js';

export async function runJob(config: RunConfig): Promise<RunResult> {
  const clock = config.clock ?? systemClock;
  const events = config.events ?? new EventEmitter<RunEvents>();
  const voice = config.voice ?? operatorVoice;
  const onServer = isDatabaseUrl(config.statePath);
  // Before the journal exists or changes and before any request: a path that cannot be used is exit 2.
  const outDir = config.settings.outDir;
  const toObjects = !config.ingestOnly && isObjectLocation(outDir);
  const preflight = preflightRun({
    manifests: config.manifests,
    ...(onServer ? {} : { statePath: config.statePath }),
    ...(config.ingestOnly || toObjects ? {} : { outDir }),
  });
  let journal: JournalStore;
  let objects: ObjectStore | undefined;
  try {
    // A bucket that is missing, refuses writes or rejects the credentials: exit 2 before anything is sent.
    if (toObjects) objects = await openObjectStore(outDir, config.settings.objectStore ?? {});
    journal = await openStore(config.statePath, {
      job: config.jobName,
      clock,
      durability: config.journalDurability ?? 'sync',
      ...(config.flushFile ? { flushFile: config.flushFile } : {}),
    });
  } catch (err) {
    objects?.close();
    preflight.undo();
    throw err;
  }
  const where = journal.location;
  const halt = new AbortController();
  const guard = new JournalGuard(journal.membership, (loss) => {
    if (loss.kind === 'lock-lost') {
      journal.fence(new LockLostError(where));
      journal.membership.forget();
    }
    events.emit(
      'log',
      loss.kind === 'lock-lost'
        ? voice.lockLost(where)
        : `${voice.journal} at ${where} was ${lossWords(loss.kind)} while running: stopping all submissions now`,
    );
    halt.abort(loss);
  });
  let heartbeat: NodeJS.Timeout | undefined;
  let runId: number | undefined;
  let end: RunEnd = { exitCode: EXIT_CODE.internal, stopReason: 'internal-error' };
  let forecasting: StartForecastTask | undefined;
  const forecastSettled = async (): Promise<void> => {
    const task = forecasting;
    forecasting = undefined;
    await settleStartForecast(task, (line) => events.emit('log', line));
  };
  const finish = async (result: RunResult): Promise<RunResult> => {
    await forecastSettled();
    await announceEnding(events, result);
    const ended = { ...result, ...(await jobEnd(journal, events, voice)) };
    end = runEndOf(ended);
    return ended;
  };
  try {
    const takeover = await acquireRunner(
      journal.membership,
      journal.capabilities.sharedRunners,
      config.ifRunning ?? { policy: undefined, timeoutMs: 0 },
      clock,
      where,
      (line) => events.emit('log', line),
    );
    const refused = await config.startGate?.();
    if (refused !== undefined) throw new StartRefused(refused);
    const final = finalBatchOf((await journal.getJob())?.options);
    // serve (it has a start gate) is told its run did not start, as for a batch its catalog says is final.
    if (final && config.startGate) throw new StartRefused(finalBatchRefusal(final));
    if (final) throw new ConfigError(`${journal.location}: ${finalBatchRefusal(final)}`);
    // Rows earlier runs left for this one, priced by this run's table: a refusal before anything changes.
    if (!config.ingestOnly)
      await refuseUnpricedHeldRows(
        journal,
        config.pricing,
        config.pricingSource ?? 'the pricing table',
        config.settings.resubmitUncertainText,
      );
    runId = await journal.recordRunStart();
    if (takeover)
      events.emit(
        'log',
        `taking over ${voice.journal} from runner pid ${takeover.pid} (${takeover.host}), which is gone`,
      );
    let beating = false;
    heartbeat = setInterval(() => {
      guard.check();
      if (guard.lost || beating) return;
      beating = true;
      journal.membership
        .heartbeat()
        .then(
          (held) => {
            events.emit('lease', held ? 'renewed' : 'lost');
            if (!held) guard.lose({ kind: 'lock-lost' });
          },
          (err: unknown) => {
            // A missed beat (the journal busy past its timeout) is harmless; the next one refreshes it.
            events.emit('lease', 'skipped');
            events.emit('log', `${voice.store} heartbeat skipped: ${(err as Error).message}`);
          },
        )
        .finally(() => {
          beating = false;
        });
    }, heartbeatMs());
    heartbeat.unref();
    // Joining waits for the job's notices lock, behind every runner starting at once: the lease beats meanwhile,
    // or a runner queued there past a lease is swept as gone while alive.
    await joinJobNotices(journal, events, voice);

    const recovery = await recoverJournal(journal, config.settings, voice);
    for (const line of recovery.messages) events.emit('log', line);

    const ingest = await ingestManifests(
      journal,
      config.manifests,
      config.pricing,
      config.skipInvalid,
      (line) => events.emit('log', line),
      config.metaColumns,
      config.skipChanged,
    ).catch(async (err: unknown) => {
      // A runner frozen past its lease mid-ingest finds its session ended by the runner that took its
      // place (its pass rolled back): it lost its standing, which is no bug.
      const lost = guard.lost?.kind === 'lock-lost' || !(await journal.membership.heartbeat().catch(() => true));
      throw lost ? new LockLostError(where) : err;
    });
    if (!ingest.ok) {
      return await finish({ ...(await emptyResult(journal, EXIT.usage, config)), ingest, recovery, takeover });
    }
    const saved = await journal.getJob();
    const budgetChoice: BudgetChoice = {
      stored: saved?.budgetUsd,
      given: config.budgetUsd,
      lift: config.liftBudget === true,
      created: saved === undefined,
      file: config.jobFileBudget ?? 'unset',
      fileSeen: saved?.jobFileBudget,
    };
    const budget = budgetInForce(budgetChoice);
    const budgetLine = voice.budgetInForce(budgetChoice, budget);
    if (budgetLine) events.emit('log', budgetLine);
    const jobInput = {
      name: config.jobName,
      manifest: config.manifests.join(','),
      options: config.jobOptions,
      budgetUsd: budget.budgetUsd,
      jobFileBudget: budget.fileBudget,
    };
    await journal.saveJob(jobInput);
    const effective: RunConfig = { ...config };
    if (budget.budgetUsd === undefined) delete effective.budgetUsd;
    else effective.budgetUsd = budget.budgetUsd;
    // What the ingest left: from its own tally when it has one (a first ingest), rather than a read of every row.
    if (config.ingestOnly)
      return await finish({
        ...(await emptyResult(journal, EXIT.ok, effective, ingest.totals)),
        ingest,
        recovery,
        takeover,
        stopReason: 'ingested',
      });
    await releaseDeferred(journal);
    // What the history says the job will cost, for the report, `status` and the live view (never the budget): of
    // the rows as they stand before the first send, drawn beside the sends.
    forecasting = await beginStartForecast(
      journal,
      accountId(config.baseUrl, config.apiKey),
      clock.now(),
      (forecast, made) => events.emit('forecast', forecast, made),
    );
    const orphaned = await journal.orphans(SHOWN_ORPHANS);
    if (orphaned.total > 0) events.emit('log', orphanedLine(orphaned, voice, ingest.skippedChanged.length));

    const { concurrency, pollConcurrency, downloadConcurrency } = config.settings;
    const watch = new GatewayWatch(config.baseUrl);
    const gateway =
      config.gateway ??
      createGatewayClient({
        baseUrl: config.baseUrl,
        apiKey: config.apiKey,
        clock,
        random: config.random,
        connectivity: watch,
        backoff: runBackoff(process.env),
        onExchange: (exchange) => events.emit('request', exchange),
        ...(config.maxResponseBytes !== undefined ? { maxResponseBytes: config.maxResponseBytes } : {}),
        // Every lane's requests can be in flight at once; fewer sockets would silently cap --concurrency.
        connections: concurrency + pollConcurrency + downloadConcurrency,
      });
    try {
      let result: RunResult | undefined;
      try {
        result = await drive(
          journal,
          gateway,
          watch,
          effective,
          clock,
          events,
          ingest,
          recovery,
          takeover,
          guard,
          halt.signal,
          objects,
        );
      } catch (err) {
        if (err instanceof LockLostError) guard.lose({ kind: 'lock-lost' });
        if (!guard.lost) throw err; // after a loss, a lane's failed write is the loss's doing, not a bug
      }
      guard.check(); // a loss in the run's last moments must not pass for "done"
      if (objects && result && !guard.lost) await sweepUploads(journal, objects, events);
      if (guard.lost) {
        const base = result ?? (await emptyResult(journal, EXIT.usage, config));
        if (guard.unrecorded.length > 0)
          await noteUnrecorded(journal, guard.unrecorded, (line) => events.emit('log', line), voice);
        return await finish(
          guard.lost.kind === 'lock-lost'
            ? endLeaseLost(where, base, voice, guard.unrecorded)
            : await endLost(journal, guard.lost.kind, base),
        );
      }
      return await finish(result!);
    } finally {
      if (!config.gateway) await gateway.close();
    }
  } catch (err) {
    end = crashEndOf(err, journalOutageLine(err), createRedactor([config.apiKey]));
    throw err;
  } finally {
    await forecastSettled();
    // A journal lost or fenced takes no more records; the saved copy is what the operator resumes from.
    if (runId !== undefined && !guard.lost) await recordEnd(journal, runId, end, events, voice);
    if (heartbeat) clearInterval(heartbeat);
    await journal.membership.release();
    await journal.close();
    objects?.close();
  }
}

/** Housekeeping after the run: a failure to sweep is one line, never the run's outcome. */
async function sweepUploads(
  journal: JournalStore,
  objects: ObjectStore,
  events: EventEmitter<RunEvents>,
): Promise<void> {
  try {
    const swept = await sweepLeftUploads(journal, objects);
    if (swept.length > 0)
      events.emit(
        'log',
        `aborted the uploads a stopped run left for ${swept.length} row(s) that are done: ${swept.slice(0, 5).join(', ')}${swept.length > 5 ? ', ...' : ''}`,
      );
  } catch (err) {
    events.emit('log', `could not sweep uploads left under ${objects.location}: ${(err as Error).message}`);
  }
}

async function drive(
  // The run's section, the report's reads for the live view, and the cost history it adds to.
  journal: JournalRun & JournalReports & JournalHistory,
  gateway: GatewayClient,
  watch: GatewayWatch,
  config: RunConfig,
  clock: Clock,
  events: EventEmitter<RunEvents>,
  ingest: IngestOutcome,
  recovery: Recovery,
  takeover: RunnerTakeover | undefined,
  guard: JournalGuard,
  halt: AbortSignal,
  objects: ObjectStore | undefined,
): Promise<RunResult> {
  const voice = config.voice ?? operatorVoice;
  const controllers = {
    submitStop: unlimited(new AbortController()),
    stop: unlimited(new AbortController()),
    hardStop: unlimited(new AbortController()),
    submitCut: unlimited(new AbortController()),
  };
  const failures = new LaneFailures({ ...controllers, events, voice });
  const stops = new RunStops({
    clock,
    events,
    voice,
    ...controllers,
    deadlineAt: config.settings.deadlineAt,
    deadlineGraceMs: config.settings.deadlineGraceMs ?? DEFAULT_DEADLINE_GRACE_S * 1000,
    drainMs: config.settings.drainMs ?? 0,
    interruptGraceMs: config.gracePeriodMs ?? 10_000,
  });
  const account = accountId(config.baseUrl, config.apiKey);
  // A commit on a journal one runner holds is local and cheap; on a shared one, a batch gathers the slots that free
  // close together, for a wait sized by how long the exchanges take (core/commit-linger.ts).
  const exchanges = journal.capabilities.sharedRunners ? new ExchangeTimes() : undefined;
  const ctx: RunContext = {
    journal,
    gateway,
    clock,
    events,
    voice,
    pricing: config.pricing,
    settings: config.settings,
    commits: new CommitQueue(
      journal,
      undefined,
      (seconds, changes) => events.emit('commit', seconds, changes),
      exchanges ? () => exchanges.lingerMs() : undefined,
    ),
    ...(exchanges ? { exchanges } : {}),
    budget: new BudgetGuard(config.budgetUsd, await journal.spend()),
    ...controllers,
    submitGate: stops,
    laneFailed: (err) => failures.trip(err),
    random: config.random ?? Math.random,
    account,
    ...(objects ? { objects } : {}),
    pacers:
      config.settings.sharedPacers ??
      requestPacers(
        config.settings,
        journal.capabilities.sharedRunners ? journal.coordination : undefined,
        account,
        clock,
      ),
  };
  // The group ratio the job's runs saw: this run's first reservations are scaled by it already.
  adoptDrifts(ctx, await journal.drifts(), 'earlier');
  const driftReads = new DriftReads(ctx);
  const cleanups: Array<() => void> = [() => stops.dispose()];
  listen(config.interrupt, () => stops.interrupt(signalName(config.interrupt)), cleanups);
  listen(config.forceInterrupt, () => stops.force(), cleanups);
  watch.onUnreachable = (head) => stops.unreachable(voice.unreachable(head));
  cleanups.push(() => {
    watch.onUnreachable = undefined;
  });
  listen(
    halt,
    () => {
      const reason = (halt.reason as JournalLoss).kind === 'lock-lost' ? 'lock-lost' : 'journal-lost';
      ctx.submitStop.abort(reason);
      ctx.stop.abort(reason);
      if (reason === 'lock-lost') ctx.hardStop.abort(reason); // the rows are another runner's now
    },
    cleanups,
  );
  stops.armDeadline();
  // Counting the job's rows costs a scan: only when someone listens (the --notify-at watch).
  if (events.listenerCount('started') > 0) {
    events.emit(
      'started',
      {
        counts: await journal.counts(),
        spend: ctx.budget.committed(),
        budgetUsd: config.budgetUsd,
        pausedUntil: gateway.pausedUntil(),
      },
      () => ctx.budget.committed(),
      journal.capabilities.sharedRunners ? journal.notices : undefined,
    );
  }

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
    beforeSubmit: () => guard.checkSoon(),
    budgetRefused: () => peers.observeBudget(),
    // Only where runners share the job: alone, a runner saw every ratio itself.
    ...(journal.capabilities.sharedRunners
      ? { bookedText: (id: string, booked: TextBooking) => recheckText(ctx, driftReads, id, booked) }
      : {}),
    unrecorded: (outcome) => guard.keepUnrecorded(outcome),
  });
  const peers = new JobPeers(
    ctx,
    {
      poll: (item) => {
        ctx.budget.adopt(1);
        if (!config.settings.noWait) poller.add(item);
      },
      download: (item) => {
        if (!config.settings.noWait) downloader.add(item);
      },
      answered: () => results.markDirty(),
      balanceRanOut: () => submitter.balanceRanOutElsewhere(),
    },
    peerBeatMs(),
  );
  cleanups.push(() => peers.stop());
  listen(config.settings.balanceStop, () => submitter.balanceRanOutElsewhere('another run of this process'), cleanups);
  const retries = new AutoRetries(ctx, {
    retryFailed: config.settings.retryFailed ?? 0,
    resubmitUncertainText: config.settings.resubmitUncertainText,
    maxAutoResubmits: config.settings.maxAutoResubmits,
    baseDelayMs: config.settings.retryBackoffMs ?? DEFAULT_RETRY_DELAY.baseDelayMs,
    maxDelayMs: DEFAULT_RETRY_DELAY.maxDelayMs,
  });
  poller.onPollDone = () => retries.nudge();
  cleanups.push(() => retries.stop());
  const history = new SettledHistory(ctx, journal, config.jobName);
  cleanups.push(() => history.stop());
  // Rows the retry policy sends again in this run go back to the submitter once their backoff is over.
  const sendAll = async (busy: () => boolean): Promise<void> => {
    await submitter.run();
    while (!failures.failed && (await retries.next(busy))) await submitter.run();
  };
  const cancels = new CancelWatch(ctx, (cancel) => submitter.jobCancelled(cancel));
  cleanups.push(() => cancels.stop());
  const { cancelStop } = config.settings;
  listen(
    cancelStop,
    () => {
      const cancel = cancelStop!.reason as JobCancel;
      void cancels.learn(cancel).catch((err: unknown) => {
        // The stop took effect above; only its acknowledgement is missing (the journal busy): harmless.
        events.emit('log', `could not acknowledge the job's cancellation: ${(err as Error).message}`);
      });
    },
    cleanups,
  );
  const monitor = new RunMonitor(
    // The live view reads the report's sums beside the run's rows.
    { ...ctx, journal },
    {
      polls: () => poller.pollCount,
      downloads: () => ({
        in_flight: downloader.activeCount,
        queued: downloader.queuedCount,
        failed: downloader.failedCount,
      }),
    },
    {
      job: config.jobName,
      progressIntervalMs: config.progressIntervalMs ?? 2000,
      snapshotIntervalMs: events.listenerCount('snapshot') > 0 ? (config.snapshotIntervalMs ?? 250) : 0,
    },
  );
  cleanups.push(() => monitor.stop());

  try {
    await monitor.start();
    // Only the rows this runner holds: other runners of the job poll and download their own.
    const inFlight: Item[] = [];
    for await (const item of journal.iterate({ states: ['submitted', 'running'], mine: true })) inFlight.push(item);
    ctx.budget.adopt(inFlight.length);
    if (!config.settings.noWait) {
      for (const item of inFlight) poller.add(item);
      for await (const item of journal.iterate({ states: ['succeeded'], kinds: ['video'], mine: true }))
        downloader.add(item);
    }
    if ((await journal.counts()).succeeded > 0) results.markDirty();
    await peers.observeBudget(); // the other runners' reservations count before this one's first claim
    peers.start();
    // A job cancelled before this run sends nothing; one cancelled during it stops sending within a check.
    await cancels.check();
    cancels.start();
    // What earlier runs left for the retry policy (a failure after their retries, or cut short by a deadline).
    if (!cancels.cancel) await retries.requeueLeftByEarlierRuns();

    // Every lane is watched while it runs: the first to fail stops the others at once (LaneFailures),
    // and each is let finish what it has on the wire before the run ends with that failure.
    if (config.settings.noWait) {
      await failures.watch(sendAll(() => false));
    } else {
      const submitting = failures
        .watch(
          (async () => {
            await sendAll(() => poller.waiting > 0);
            // Among runners of one job: stay while one that stopped holds rows, and take them over.
            while (!failures.failed && (await peers.settle()) === 'claimable') await sendAll(() => poller.waiting > 0);
            if (peers.error !== undefined) throw peers.error;
          })(),
        )
        .finally(() => poller.producersDone());
      await Promise.all([submitting, failures.watch(poller.run())]);
      await failures.watch(downloader.idle());
    }
    failures.rethrow();
    await history.flush();
    await journal.flush(); // what the results, the report and the exit code say is on disk first
    await results.close();
    const stopReason: RunResult['stopReason'] = stops.reason ?? (config.settings.noWait ? 'no-wait' : undefined);
    const deadlineLine = stops.deadlineSummary(submitter.cutCount);
    if (deadlineLine) events.emit('log', deadlineLine);
    const stopMessage = deadlineLine ?? stops.message;
    const counts = await journal.counts();
    // The job's totals, from the journal: every runner of a job ends on the same figures.
    const spend = await journal.spend();
    monitor.finish(counts, spend);
    const outputFailure = outputs.failure;
    const stoppedEarly = stopReason !== undefined || submitter.exhaustedCount > 0 || outputFailure !== undefined;
    // Orphaned rows that wait are none of this run's work: they neither defer nor fail it.
    const ending = { counts: countsForExit(counts, (await journal.orphans(0)).counts), stoppedEarly };
    return {
      // A refused key is bad configuration (exit 2), whatever else the counts say.
      exitCode:
        submitter.reason === 'auth' || poller.authRefused
          ? EXIT.usage
          : outputExitCode(exitCodeFor(ending), outputFailure),
      counts,
      ingest,
      recovery,
      takeover,
      ...(outputFailure ? { outputFailure } : {}),
      stopReason: poller.authRefused ? 'auth' : outputFailure ? 'output' : (submitter.reason ?? stopReason),
      ...(stopMessage !== undefined ? { stopMessage } : {}),
      spend,
      // The job's budget as this run last read it: another run of the job may have changed it meanwhile.
      budgetUsd: ctx.budget.budgetUsd,
      polls: poller.pollCount,
      downloadFailures: downloader.failedCount,
      exhaustedRetries: submitter.exhaustedCount,
      autoRetried: { requeued: retries.requeued, resubmitted: retries.resubmitted },
      budgetRefusals: submitter.budgetRefusals,
      journalCommits: ctx.commits.commitCount,
    };
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

/** A beat often enough that a lease (the stale threshold) sees several before it expires. */
function heartbeatMs(): number {
  return Math.min(HEARTBEAT_MS, Math.max(100, Math.floor(staleAfterMs() / 4)));
}

/** How often runners sharing a job look at each other (sweeps, a 402, a 429's pause). */
function peerBeatMs(): number {
  return Math.min(500, heartbeatMs());
}

/** Every request in flight listens on these signals: thousands of listeners are expected, not a leak. */
function unlimited(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}

/** How the run ended, for `status`; a journal that cannot take it does not change the run's outcome. */
async function recordEnd(
  journal: JournalRun,
  runId: number,
  end: RunEnd,
  events: EventEmitter<RunEvents>,
  voice: RunVoice,
): Promise<void> {
  try {
    await journal.recordRunEnd(runId, end);
  } catch (err) {
    events.emit('log', `could not record how this run ended in ${voice.journal}: ${(err as Error).message}`);
  }
}

function signalName(signal: AbortSignal | undefined): string | undefined {
  return typeof signal?.reason === 'string' ? signal.reason : undefined;
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

/** Deferred rows get their chance again on every run: those this run's manifests list (or the operator adopted). */
async function releaseDeferred(journal: JournalRun): Promise<void> {
  // Read and written under one write lock: an operator's `resolve` cannot move a row in between.
  await journal.decideAndApply(async (reader) => {
    const deferred: Item[] = [];
    for await (const item of reader.iterate({ states: ['deferred'], notOrphaned: true })) deferred.push(item);
    return {
      changes: deferred.map((item) => ({ id: item.id, event: 'release' as const, detail: { reason: 'new run' } })),
      result: undefined,
    };
  });
}

async function emptyResult(
  journal: JournalRun,
  exitCode: number,
  config: RunConfig,
  totals?: JobTotals,
): Promise<RunResult> {
  return {
    exitCode,
    counts: totals?.counts ?? (await journal.counts()),
    stopReason: undefined,
    spend: totals?.spend ?? (await journal.spend()),
    budgetUsd: config.budgetUsd,
    polls: 0,
    downloadFailures: 0,
    exhaustedRetries: 0,
    journalCommits: 0,
  };
}
