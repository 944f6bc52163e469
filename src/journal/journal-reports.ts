// The report's and the dashboard's reads (`report`, `status`, the live view, `gbatch ui`, metrics): sums, pages
// of rows and of the event log, timings, runners and past runs. Nothing here changes the journal, and nothing
// here is read by a run's decisions: an adapter may answer these from its summaries (both do: item sums, row
// times, the event log's index) or from another store altogether.
import type { Item } from './item.js';
import type { ItemEventRecord } from './journal-operator.js';
import type { KindCounts } from './kind-counts.js';
import type { RunRecord } from './run-record.js';
import type { RunnerView } from './runner-membership.js';
import type { StateKindFilter } from './state-kind-filter.js';

/** One entry of the job's event log, as the report's timeline reads it (seq order). */
export interface EventLogRecord extends ItemEventRecord {
  seq: number;
  itemId: string;
}

/** A page of the job's rows for a row browser: filters, then manifest order after a cursor. */
export interface RowQuery extends StateKindFilter {
  model?: string;
  /** lastError.code equals this (e.g. 'rate_limited', 'budget_exceeded'). */
  errorCode?: string;
  /** Rows whose id starts with this (exact id included). */
  idPrefix?: string;
  /** Only rows after this manifest position. */
  afterSeq?: number;
  /** At most this many rows (1..500). */
  limit: number;
}

/** The job's distinct models and error codes with their row counts, most rows first. */
export interface RowFacets {
  models: Array<{ model: string; rows: number }>;
  errorCodes: Array<{ code: string; rows: number }>;
}

/** The job's first submission and last activity (ms; both null until something was sent). */
export interface JobActivity {
  firstAt: number | null;
  lastAt: number | null;
}

/** When a row moved through its last attempt (ms; absent: not yet), as the row keeps it. */
export interface RowTimes {
  submittedAt?: number;
  acceptedAt?: number;
  succeededAt?: number;
  /** When it reached the finished state it is in (downloaded, failed, rejected). */
  finishedAt?: number;
}

/** What a report shows of a row (no request or answer bodies), with its last attempt's times. */
export type ReportRowSource = Pick<
  Item,
  | 'seq'
  | 'id'
  | 'kind'
  | 'model'
  | 'state'
  | 'taskId'
  | 'resolution'
  | 'finalResolution'
  | 'hasReferenceVideo'
  | 'estimateUsd'
  | 'actualUsd'
  | 'totalTokens'
  | 'outputPath'
  | 'sha256'
  | 'bytes'
  | 'lastError'
  | 'attempts'
  | 'autoResubmits'
  | 'gatewayChargeUsd'
  | 'unmetered'
  | 'priceSnapshot'
  | 'sourceFile'
  | 'sourceLine'
> & { times: RowTimes };

/** The job's video tasks that succeeded, and the median of their submission-to-success times (nearest rank). */
export interface VideoTaskTimes {
  count: number;
  medianMs: number | null;
}

/** The sums `report` and `status` show, for the whole job and per model and resolution. */
export interface SumRow {
  items: number;
  settled: number | null;
  estimated: number | null;
  actual: number | null;
  settled_estimated: number | null;
  reserved: number | null;
  over: number | null;
  gateway: number | null;
  gateway_n: number;
  tokens: number | null;
  unmetered?: number | null;
}

export interface ReportSums {
  total: SumRow;
  groups: Array<SumRow & { model: string; resolution: string | null }>;
}

export interface JournalReports {
  /** Rows by kind of work and state (every kind and state present, zeros included): counts() split by kind. */
  countsByKind(): Promise<KindCounts>;
  /** The job's event log after `afterSeq`, in seq order, at most `limit` entries: read in pages (see eventLog()). */
  eventLogPage(afterSeq: number, limit: number): Promise<EventLogRecord[]>;
  /** Read from the job's summary rows, not from its rows: money to the nano-dollar. */
  reportSums(): Promise<ReportSums>;
  /** A page of the job's rows for a row browser: filters, then manifest order after a cursor. */
  rowPage(query: RowQuery): Promise<Item[]>;
  /** The job's distinct models and error codes with their row counts, for a browser's filters (from summaries). */
  rowFacets(): Promise<RowFacets>;
  /** The job's first and last activity (ms; null when none): from a summary or an index, never a scan of the log. */
  activity(): Promise<JobActivity>;
  /** How many video tasks succeeded and their median time from submission to success, from a summary. */
  videoTaskTimes(): Promise<VideoTaskTimes>;
  /**
   * Up to `limit` rows after `afterSeq` in manifest order as a report shows them, with their times (a million rows
   * are read for a report: only what it shows); undefined when the journal keeps no times (fold its event log).
   */
  reportRows(afterSeq: number, limit: number): Promise<ReportRowSource[] | undefined>;
  /** The time (ms) of each item's last `submit`, for the ids given. */
  lastSubmitTimes(ids: readonly string[]): Promise<Map<string, number>>;

  /** The job's runners, live and dead, as `status` shows them. */
  runners(): Promise<RunnerView[]>;
  lastRun(): Promise<RunRecord | undefined>;
}
