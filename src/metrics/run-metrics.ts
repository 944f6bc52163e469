// A run's figures in the Prometheus model, in a registry of the run's own (never the process-wide
// default). Everything comes from the run's typed events: the snapshot (the journal's counts and the
// budget's money, as the live view draws them) for gauges, the lanes' events for counters. Nothing here
// is a second account of the run: a gauge is set from the snapshot, a counter counts events as they pass.
import type { EventEmitter } from 'node:events';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunSnapshot } from '../core/run-snapshot.js';
import { ITEM_KINDS, ITEM_STATES, type ItemState } from '../core/states.js';
import type { GatewayExchange } from '../gateway/client-types.js';
import type { Item, KindCounts } from '../journal/index.js';
import type { RunEvents } from '../pipeline/index.js';
import { MONEY_KINDS } from './kind-of-work.js';
import { METRIC } from './metric-names.js';

/**
 * Gauges without labels that have no value until known (prom-client would print 0): left out of the text until
 * then. The snapshot's come with the first snapshot; a scrape during the ingest sees no money rather than $0.
 */
const OPTIONAL = [
  METRIC.spend,
  METRIC.reserved,
  METRIC.paused,
  METRIC.tasksInFlight,
  METRIC.startTime,
  METRIC.budget,
  METRIC.leaseRenewedAt,
  METRIC.lastSuccess,
];
const PHASES = ['submitting', 'waiting', 'downloading', 'settling', 'stopping', 'done'] as const;

/** Up to ~6 h: a video task can take hours upstream. */
const TASK_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 21600];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class RunMetrics {
  readonly registry = new Registry();
  private readonly rows: Gauge<'state' | 'kind'>;
  private readonly spend: Gauge;
  private readonly reserved: Gauge;
  private readonly budget: Gauge;
  private readonly estimate: Gauge<'kind'>;
  private readonly settledEstimate: Gauge<'kind'>;
  private readonly settledActual: Gauge<'kind'>;
  private readonly phase: Gauge<'phase'>;
  private readonly paused: Gauge;
  private readonly tasksInFlight: Gauge;
  private readonly downloadsOpen: Gauge<'stage'>;
  private readonly startTime: Gauge;
  private readonly requests: Counter<'lane' | 'status_class'>;
  private readonly ratePauses: Counter;
  private readonly submissions: Counter<'outcome'>;
  private readonly polls: Counter;
  private readonly downloads: Counter;
  private readonly downloadBytes: Counter;
  private readonly downloadFailures: Counter;
  private readonly taskDuration: Histogram;
  private readonly commitDuration: Histogram;
  private readonly leases: Counter<'outcome'>;
  private readonly leaseRenewedAt: Gauge;
  private readonly lastSuccess: Gauge;
  /** Video tasks accepted this run, by row id: their duration is observed when they succeed. */
  private readonly acceptedAt = new Map<string, number>();
  /** Counters the snapshot carries as running totals: what was already counted of each. */
  private seenPolls = 0;
  private seenDownloadFailures = 0;
  private seenSnapshot = false;
  private events: EventEmitter<RunEvents> | undefined;

  /**
   * @param readRows the job's rows by kind and state as its journal counts them (every runner's), read when
   * the metrics are; without it no rows are published.
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly readRows?: () => Promise<KindCounts>,
  ) {
    const r = [this.registry];
    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> =>
      new Gauge({ name, help, labelNames, registers: r });
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> =>
      new Counter({ name, help, labelNames, registers: r });
    const collectRows = (): Promise<void> => this.collectRows();
    this.rows = new Gauge({
      name: METRIC.rows,
      help: "Rows of the job by state and kind of work, as the journal counts them (every runner's).",
      labelNames: ['state', 'kind'],
      registers: r,
      collect: collectRows,
    });
    this.spend = gauge(METRIC.spend, 'Money settled for the job, USD.');
    this.reserved = gauge(METRIC.reserved, 'Money reserved for requests and tasks in flight, USD.');
    this.budget = gauge(METRIC.budget, 'The budget in force for the job, USD (absent: no budget).');
    this.estimate = gauge(METRIC.estimate, "The estimate of the job's rows by kind of work, USD.", ['kind']);
    this.settledEstimate = gauge(METRIC.settledEstimate, 'The estimate of the rows settled, by kind, USD.', ['kind']);
    this.settledActual = gauge(METRIC.settledActual, 'What the rows settled cost, by kind, USD.', ['kind']);
    this.phase = gauge(METRIC.phase, 'Where the run is: 1 for its current phase, 0 for the others.', ['phase']);
    this.paused = gauge(METRIC.paused, "1 while a 429 holds back the account's requests, else 0.");
    this.tasksInFlight = gauge(METRIC.tasksInFlight, 'Video tasks in flight upstream (submitted or running).');
    this.downloadsOpen = gauge(METRIC.downloadsOpen, 'Downloads transferring or waiting their turn.', ['stage']);
    this.startTime = gauge(METRIC.startTime, 'When the run started, seconds since the epoch.');
    this.requests = counter(METRIC.requests, 'Requests to the gateway by lane and status class.', [
      'lane',
      'status_class',
    ]);
    this.ratePauses = counter(METRIC.ratePauses, 'Answers 429 from the gateway: each pauses the account.');
    this.submissions = counter(METRIC.submissions, 'Submissions by outcome (retried, uncertain, accepted...).', [
      'outcome',
    ]);
    this.polls = counter(METRIC.polls, 'Polls of video tasks made by this run.');
    this.downloads = counter(METRIC.downloads, 'Video files stored by this run.');
    this.downloadBytes = counter(METRIC.downloadBytes, 'Bytes of video files stored by this run.');
    this.downloadFailures = counter(METRIC.downloadFailures, 'Downloads given up by this run.');
    this.taskDuration = new Histogram({
      name: METRIC.taskDuration,
      help: 'Video tasks from acceptance to success, seconds (tasks accepted by this run).',
      buckets: TASK_BUCKETS,
      registers: r,
    });
    this.commitDuration = new Histogram({
      name: METRIC.commitDuration,
      help: "Journal transactions of the run's lanes, seconds each (group commit: one carries many changes).",
      buckets: COMMIT_BUCKETS,
      registers: r,
    });
    this.leases = counter(METRIC.leases, "Refreshes of this runner's lease (its lock on SQLite) by outcome.", [
      'outcome',
    ]);
    this.leaseRenewedAt = gauge(METRIC.leaseRenewedAt, "When this runner's lease was last refreshed, epoch seconds.");
    this.lastSuccess = gauge(METRIC.lastSuccess, 'When the job last ended with exit 0, epoch seconds (pushed only).');
    // Absent until known: a 0 would read as a budget of nothing, or a time in 1970.
    for (const name of OPTIONAL) this.registry.removeSingleMetric(name);
  }

  /** Listens to the run's events; listening to `snapshot` makes the run emit it (see RunMonitor). */
  attach(events: EventEmitter<RunEvents>): void {
    this.events = events;
    events.on('snapshot', this.onSnapshot);
    events.on('transition', this.onTransition);
    events.on('request', this.onRequest);
    events.on('commit', this.onCommit);
    events.on('lease', this.onLease);
  }

  detach(): void {
    const { events } = this;
    if (!events) return;
    events.off('snapshot', this.onSnapshot);
    events.off('transition', this.onTransition);
    events.off('request', this.onRequest);
    events.off('commit', this.onCommit);
    events.off('lease', this.onLease);
    this.events = undefined;
  }

  /** The run ended with exit 0: the timestamp Prometheus advises batch jobs to push. */
  markSuccess(atMs: number): void {
    this.setOrAbsent(METRIC.lastSuccess, this.lastSuccess, atMs / 1000);
  }

  /** Whether a snapshot of the run arrived: before it, there are no rows or money to publish. */
  hasFigures(): boolean {
    return this.seenSnapshot;
  }

  /** The registry's text, in the Prometheus exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  private readonly onSnapshot = (s: RunSnapshot): void => {
    this.seenSnapshot = true;
    this.setOrAbsent(METRIC.spend, this.spend, s.money.actual_usd);
    this.setOrAbsent(METRIC.reserved, this.reserved, s.money.reserved_usd);
    this.setOrAbsent(METRIC.budget, this.budget, s.money.budget_usd);
    if (s.money.by_kind) {
      for (const kind of MONEY_KINDS) {
        const money = s.money.by_kind[kind];
        this.estimate.set({ kind }, money.estimate_usd);
        this.settledEstimate.set({ kind }, money.settled_estimate_usd);
        this.settledActual.set({ kind }, money.settled_actual_usd);
      }
    }
    for (const phase of PHASES) this.phase.set({ phase }, phase === s.phase ? 1 : 0);
    this.setOrAbsent(METRIC.paused, this.paused, s.paused_until === null ? 0 : 1);
    this.setOrAbsent(METRIC.tasksInFlight, this.tasksInFlight, s.tasks.in_flight);
    this.downloadsOpen.set({ stage: 'transferring' }, s.lanes.download.in_flight);
    this.downloadsOpen.set({ stage: 'queued' }, s.lanes.download.queued);
    this.setOrAbsent(METRIC.startTime, this.startTime, s.started_at / 1000);
    this.seenPolls = this.addTo(this.polls, s.lanes.poll.polls, this.seenPolls);
    this.seenDownloadFailures = this.addTo(this.downloadFailures, s.lanes.download.failed, this.seenDownloadFailures);
  };

  private readonly onTransition = (item: Item, from: ItemState | undefined): void => {
    const to = item.state;
    if (from === 'submitting') this.submissions.inc({ outcome: submissionOutcome(item) });
    if (item.kind !== 'video') return;
    if (to === 'submitted' && from === 'submitting') this.acceptedAt.set(item.id, this.now());
    if ((from === 'submitted' || from === 'running') && to !== 'running') {
      const at = this.acceptedAt.get(item.id);
      this.acceptedAt.delete(item.id);
      if (at !== undefined && to === 'succeeded') this.taskDuration.observe(Math.max(0, this.now() - at) / 1000);
    }
    if (from === 'succeeded' && to === 'downloaded') {
      this.downloads.inc();
      if (item.bytes !== null && item.bytes !== undefined) this.downloadBytes.inc(item.bytes);
    }
  };

  private readonly onRequest = (exchange: GatewayExchange): void => {
    this.requests.inc({ lane: exchange.lane, status_class: statusClass(exchange.status) });
    if (exchange.status === 429) this.ratePauses.inc();
  };

  private readonly onCommit = (seconds: number): void => {
    this.commitDuration.observe(seconds);
  };

  private readonly onLease = (outcome: 'renewed' | 'lost' | 'skipped'): void => {
    this.leases.inc({ outcome });
    if (outcome === 'renewed') this.setOrAbsent(METRIC.leaseRenewedAt, this.leaseRenewedAt, this.now() / 1000);
  };

  /** Rows from the journal once the run has figures; a read that fails leaves the last ones published. */
  private async collectRows(): Promise<void> {
    if (!this.seenSnapshot || !this.readRows) return;
    let counts: KindCounts;
    try {
      counts = await this.readRows();
    } catch {
      return;
    }
    this.rows.reset();
    for (const kind of ITEM_KINDS) for (const state of ITEM_STATES) this.rows.set({ state, kind }, counts[kind][state]);
  }

  /** An unlabelled gauge with no value is left out of the registry: prom-client would print it as 0. */
  private setOrAbsent(name: string, gauge: Gauge, value: number | null): void {
    const present = this.registry.getSingleMetric(name) !== undefined;
    if (value === null) {
      if (present) this.registry.removeSingleMetric(name);
      return;
    }
    if (!present) this.registry.registerMetric(gauge);
    gauge.set(value);
  }

  /** Adds what a running total gained since it was last seen; returns the total seen now. */
  private addTo(counter: Counter, total: number, seen: number): number {
    if (total > seen) counter.inc(total - seen);
    return Math.max(total, seen);
  }
}

/** `2xx`, `4xx`, `5xx`...; `none` for a request that got no answer (refused, reset, timed out). */
export function statusClass(status: number | null): string {
  return status === null ? 'none' : `${Math.floor(status / 100)}xx`;
}

/** What a submission came to, from the state it left `submitting` for. */
function submissionOutcome(item: Item): string {
  switch (item.state) {
    case 'submitted':
      return 'accepted';
    case 'succeeded':
      return 'answered';
    case 'pending':
      return item.lastError?.status === 401 ? 'key_refused' : 'retried';
    default:
      return item.state; // rejected, failed, uncertain, deferred, cancelled
  }
}
