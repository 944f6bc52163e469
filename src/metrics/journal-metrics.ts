// Metrics of jobs read from their journals, for a process that is not their run (`gbatch serve`, a
// dashboard): every series carries the job's name, and everything is read when Prometheus scrapes, from
// the journal's cheap reads (counts, sums, spend, runners, the job record), never its rows or event log.
import { Gauge, Registry } from 'prom-client';
import { ITEM_KINDS, ITEM_STATES } from '../core/states.js';
import { startForecastOf } from '../core/start-forecast.js';
import type {
  JobRecord,
  JournalReports,
  JournalRunReads,
  KindCounts,
  ReportSums,
  RunnerView,
  RunRecord,
  Spend,
} from '../journal/index.js';
import { MONEY_KINDS, moneyKindOfGroup, type MoneyKind } from './kind-of-work.js';
import { pacedRead } from './paced-read.js';
import { JOB_LABEL, METRIC } from './metric-names.js';

export interface MetricsJob {
  /** The job's name, as its series are labelled. */
  job: string;
  queries: JournalRunReads & JournalReports;
  /** The client the job belongs to, on a server whose clients each see only their own jobs (serve). */
  owner?: string;
  /** Called once the scrape has read the job (a handle opened for it is closed). */
  release?: () => Promise<void>;
}

export interface JournalSource {
  /**
   * The jobs to publish now, asked at every scrape: a list, or one job at a time (each is read and released
   * before the next is asked for, so a source of many journals need not hold them all open at once).
   */
  jobs(): Promise<MetricsJob[]> | AsyncIterable<MetricsJob>;
}

export interface JournalExporter {
  readonly contentType: string;
  /**
   * The text of a scrape: every job read afresh (unless the last read was dear: see paceRatio); with `owner`,
   * only that client's jobs. Each scrape prints from a registry of its own: scrapes at once never mix.
   */
  metrics(scope?: { owner?: string }): Promise<string>;
}

export interface JournalMetricsOptions {
  /** Told of a job whose journal could not be read: the scrape goes on without it. */
  onReadError?: (job: string, error: Error) => void;
  /** A scrape reuses the last read until this many times its duration has passed (pacedRead; 0: never). */
  paceRatio?: number;
  /** The shortest read that is paced (default DEAR_READ_MS). */
  dearReadMs?: number;
  /** Milliseconds, for the pacing (default: performance.now). */
  now?: () => number;
}

/** What one scrape read of one job. */
interface JobFigures {
  job: string;
  owner: string | undefined;
  record: JobRecord | undefined;
  rows: KindCounts;
  spend: Spend;
  sums: ReportSums;
  runners: RunnerView[];
  lastRun: RunRecord | undefined;
}

export function journalMetrics(source: JournalSource, options: JournalMetricsOptions = {}): JournalExporter {
  // The collect callbacks of one scrape all start at once: the first reads the journals, the rest join it.
  const paced = pacedRead(() => readJobs(source, options), {
    ...(options.paceRatio !== undefined ? { ratio: options.paceRatio } : {}),
    ...(options.dearReadMs !== undefined ? { dearMs: options.dearReadMs } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    metrics: (scope = {}) => {
      const read = async (): Promise<JobFigures[]> => {
        const jobs = await paced.read();
        return scope.owner === undefined ? jobs : jobs.filter((f) => f.owner === scope.owner);
      };
      return jobRegistry(read).metrics();
    },
  };
}

/** One gauge of every job: its name, help, labels besides the job's, and how the jobs' figures fill it. */
interface JobGauge {
  name: string;
  help: string;
  labels: readonly string[];
  fill(gauge: Gauge<string>, jobs: JobFigures[]): void;
}

/** A gauge by kind of work, summing one figure of the job's report groups. */
function byKind(name: string, help: string, figure: (sums: ReportSums['groups'][number]) => number | null): JobGauge {
  return {
    name,
    help,
    labels: ['kind'],
    fill: (g, jobs) => {
      for (const f of jobs) {
        const totals = Object.fromEntries(MONEY_KINDS.map((k) => [k, 0])) as Record<MoneyKind, number>;
        for (const group of f.sums.groups) totals[moneyKindOfGroup(group)] += figure(group) ?? 0;
        for (const kind of MONEY_KINDS) g.set({ job_name: f.job, kind }, totals[kind]);
      }
    },
  };
}

const JOB_GAUGES: readonly JobGauge[] = [
  {
    name: METRIC.rows,
    help: 'Rows of the job by state and kind of work, as its journal counts them.',
    labels: ['state', 'kind'],
    fill: (g, jobs) => {
      for (const f of jobs)
        for (const kind of ITEM_KINDS)
          for (const state of ITEM_STATES) {
            // A state without rows has no series: most of a job's (kind, state) pairs are empty at any time.
            const rows = f.rows[kind][state];
            if (rows > 0) g.set({ job_name: f.job, state, kind }, rows);
          }
    },
  },
  {
    name: METRIC.spend,
    help: 'Money settled for the job, USD.',
    labels: [],
    fill: (g, jobs) => jobs.forEach((f) => g.set({ job_name: f.job }, f.spend.actualUsd)),
  },
  {
    name: METRIC.reserved,
    help: 'Money reserved for requests and tasks in flight, USD.',
    labels: [],
    fill: (g, jobs) => jobs.forEach((f) => g.set({ job_name: f.job }, f.spend.reservedUsd)),
  },
  {
    name: METRIC.budget,
    help: 'The budget in force for the job, USD (absent: no budget).',
    labels: [],
    fill: (g, jobs) => {
      for (const f of jobs) {
        const budget = f.record?.budgetUsd;
        if (budget !== undefined) g.set({ job_name: f.job }, budget);
      }
    },
  },
  {
    name: METRIC.forecast,
    help: "The job's total as the cost history forecast it at its start, USD, by quantile (absent: no forecast kept).",
    labels: ['quantile'],
    fill: (g, jobs) => {
      for (const f of jobs) {
        const forecast = startForecastOf(f.record?.options)?.total;
        if (!forecast) continue;
        g.set({ job_name: f.job, quantile: '0.5' }, forecast.p50Usd);
        g.set({ job_name: f.job, quantile: '0.9' }, forecast.p90Usd);
      }
    },
  },
  byKind(METRIC.estimate, "The estimate of the job's rows by kind of work, USD.", (s) => s.estimated),
  byKind(METRIC.settledEstimate, 'The estimate of the rows settled, by kind, USD.', (s) => s.settled_estimated),
  byKind(METRIC.settledActual, 'What the rows settled cost, by kind, USD.', (s) => s.actual),
  {
    name: METRIC.runners,
    help: "The job's runners known to its journal, by whether they are alive.",
    labels: ['alive'],
    fill: (g, jobs) => {
      for (const f of jobs) {
        const alive = f.runners.filter((r) => r.liveness.alive).length;
        g.set({ job_name: f.job, alive: 'true' }, alive);
        g.set({ job_name: f.job, alive: 'false' }, f.runners.length - alive);
      }
    },
  },
  {
    name: METRIC.leaseRenewedAt,
    help: "When each runner's lease (its heartbeat) was last refreshed, epoch seconds.",
    labels: ['runner', 'host', 'pid'],
    fill: (g, jobs) => {
      for (const f of jobs)
        for (const r of f.runners)
          g.set({ job_name: f.job, runner: r.runnerId, host: r.host, pid: String(r.pid) }, r.heartbeatAt / 1000);
    },
  },
  {
    name: METRIC.lastActivity,
    help: "The job's latest recorded activity (a run's start or end, a heartbeat, the job record written), epoch seconds.",
    labels: [],
    fill: (g, jobs) => {
      for (const f of jobs) {
        const at = lastActivity(f);
        if (at !== undefined) g.set({ job_name: f.job }, at / 1000);
      }
    },
  },
];

/** The gauges of the jobs `read` gives, in a registry of their own. */
function jobRegistry(read: () => Promise<JobFigures[]>): Registry {
  const registry = new Registry();
  for (const spec of JOB_GAUGES) {
    new Gauge<string>({
      name: spec.name,
      help: spec.help,
      labelNames: [JOB_LABEL, ...spec.labels],
      registers: [registry],
      async collect() {
        const jobs = await read();
        this.reset();
        spec.fill(this, jobs);
      },
    });
  }
  return registry;
}

async function readJobs(source: JournalSource, options: JournalMetricsOptions): Promise<JobFigures[]> {
  const figures: JobFigures[] = [];
  for await (const { job, owner, queries, release } of await source.jobs()) {
    try {
      const record = await queries.getJob();
      // A job whose journal holds no job yet (its first run has not ingested) has no figures.
      if (record === undefined) continue;
      figures.push({
        job,
        owner,
        record,
        rows: await queries.countsByKind(),
        spend: await queries.spend(),
        sums: await queries.reportSums(),
        runners: await queries.runners(),
        lastRun: await queries.lastRun(),
      });
    } catch (err) {
      options.onReadError?.(job, err as Error);
    } finally {
      await release?.().catch(() => undefined);
    }
  }
  return figures;
}

function lastActivity(f: JobFigures): number | undefined {
  const times = [
    f.record?.updatedAt,
    f.lastRun?.startedAt,
    f.lastRun?.endedAt ?? undefined,
    ...f.runners.map((r) => r.heartbeatAt),
  ].filter((t): t is number => typeof t === 'number');
  return times.length === 0 ? undefined : Math.max(...times);
}
