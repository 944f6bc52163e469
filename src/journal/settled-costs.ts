// The journal's cost history (the `settled_costs` table): a section of its own beside the journal
// interface (store.ts). Each adapter keeps it in its own file (sqlite/settled-costs.ts,
// postgres/settled-costs.ts) and both share the row mapping below; beside it, the snapshot a forecast reads.
import { hash } from 'node:crypto';
import type { SettledCost } from '../core/forecast.js';
import type { StartForecast } from '../core/start-forecast.js';
import type { ItemKind, ItemState } from '../core/states.js';
import type { Item } from './item.js';
import type { ItemFilter } from './journal-run.js';

/** One settled row of the history. */
export interface SettledCostRecord extends SettledCost {
  /** Names the settlement wherever the row is copied: a second import of it adds nothing. */
  id: string;
  /** The gateway account billed (accountId: a hash of its URL and key). */
  account: string;
  /** The resolution the gateway billed (video), when it named one. */
  finalResolution: string | null;
  settledAt: number;
}

export interface JournalHistoryReads {
  /** Every settled row of the history, oldest first (on PostgreSQL: every job's of the database). */
  settledCosts(): Promise<SettledCostRecord[]>;
  /**
   * The job's rows and the history as they stand now, to be read later while the run goes on (the forecast a
   * job starts with reads them off the path to its first sends). The caller closes it.
   */
  snapshot(): Promise<JournalSnapshot>;
}

/** What a snapshot reads of a row: what a forecast needs of it, no more (a row read whole costs ten times as much). */
export type SnapshotRow = Pick<Item, 'seq' | 'id' | 'kind' | 'state' | 'request' | 'estimateUsd'>;

/** A snapshot row as both adapters select it (SNAPSHOT_ROW_COLUMNS, `request` read where each keeps it). */
export interface SnapshotRowData {
  seq: number;
  id: string;
  kind: string;
  state: string;
  request: string | null;
  estimate_usd: number;
}

export const SNAPSHOT_ROW_COLUMNS = 'items.seq, items.id, items.kind, items.state, items.estimate_usd';

function snapshotRowOf(row: SnapshotRowData): SnapshotRow {
  return {
    seq: Number(row.seq),
    id: row.id,
    kind: row.kind as ItemKind,
    state: row.state as ItemState,
    request: row.request === null ? {} : (JSON.parse(row.request) as Record<string, unknown>),
    estimateUsd: Number(row.estimate_usd),
  };
}

/** A snapshot's rows, page after page: `page` reads up to a page of rows after a seq (none: the end). */
export async function* snapshotRows(
  page: (afterSeq: number) => Promise<SnapshotRowData[]> | SnapshotRowData[],
): AsyncGenerator<SnapshotRow> {
  for (let after = 0; ;) {
    const rows = await page(after);
    if (rows.length === 0) return;
    yield* rows.map(snapshotRowOf);
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/**
 * The journal as it stood at one moment, read afterwards while the run goes on: a read transaction held open on
 * a connection of its own (SQLite: a second connection's WAL snapshot; PostgreSQL: a REPEATABLE READ
 * transaction), so that pages read later see none of the changes committed since it was taken.
 */
export interface JournalSnapshot {
  /** Rows in manifest order, in pages, as they stood when the snapshot was taken. */
  iterate(filter?: Omit<ItemFilter, 'mine'>, pageSize?: number): AsyncGenerator<SnapshotRow>;
  /** The cost history, oldest first, as it stood. */
  settledCosts(): Promise<SettledCostRecord[]>;
  /** Ends the read transaction and gives its connection back; the snapshot reads nothing after. */
  close(): Promise<void>;
}

/** The start forecast a job's record keeps, and whether the save that asked for it kept this one. */
export interface KeptStartForecast {
  forecast: StartForecast;
  made: boolean;
}

export interface JournalHistory extends JournalHistoryReads {
  /** Adds the rows the history lacks (by id); returns how many were added. */
  recordSettled(rows: readonly SettledCostRecord[]): Promise<number>;
  /**
   * Keeps `forecast` (drawn from the history) in the job's record unless the record keeps one already (another
   * runner's, kept meanwhile), in one step: the forecast the record keeps then, and whether it is this one.
   * Undefined before the job is saved.
   */
  keepStartForecast(forecast: StartForecast): Promise<KeptStartForecast | undefined>;
}

/**
 * The id of one settlement: when it settled, then a hash of the account, the job, the row and its attempt. Ids
 * that rise with time land at the end of the history's index, where random ones would rewrite a page of it
 * anywhere for every row a run settles.
 */
export function settlementId(parts: {
  account: string;
  job: string;
  itemId: string;
  attempt: number;
  at: number;
}): string {
  const digest = hash(
    'sha256',
    [parts.account, parts.job, parts.itemId, String(parts.attempt), String(parts.at)].join('\n'),
    'hex',
  );
  return `${Math.max(0, Math.floor(parts.at)).toString(36).padStart(9, '0')}-${digest.slice(0, 22)}`;
}

export const SETTLED_COST_COLUMNS = [
  'id',
  'account',
  'model',
  'kind',
  'resolution',
  'final_resolution',
  'duration_s',
  'size_bucket',
  'estimate_usd',
  'bound_usd',
  'actual_usd',
  'settled_at',
] as const;

/** The history, oldest first, as both adapters read it. */
export const SELECT_SETTLED_COSTS = `SELECT ${SETTLED_COST_COLUMNS.join(', ')} FROM settled_costs ORDER BY settled_at, id`;

/**
 * The INSERT of `rows` settled rows that adds only those the history lacks (by id); `mark(i)` is the adapter's
 * placeholder for the i-th value, the values being valuesOfSettledCost's of each row in turn.
 */
export function insertSettledCostsSql(rows: number, mark: (i: number) => string): string {
  const width = SETTLED_COST_COLUMNS.length;
  const tuples = Array.from(
    { length: rows },
    (_, r) => `(${SETTLED_COST_COLUMNS.map((__, c) => mark(r * width + c)).join(', ')})`,
  );
  return `INSERT INTO settled_costs (${SETTLED_COST_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`;
}

export interface SettledCostRow {
  id: string;
  account: string;
  model: string;
  kind: string;
  resolution: string | null;
  final_resolution: string | null;
  duration_s: number | null;
  size_bucket: number;
  estimate_usd: number;
  bound_usd: number;
  actual_usd: number;
  settled_at: number | string;
}

export function valuesOfSettledCost(r: SettledCostRecord): Array<string | number | null> {
  return [
    r.id,
    r.account,
    r.model,
    r.kind,
    r.resolution,
    r.finalResolution,
    r.durationS,
    r.sizeBucket,
    r.estimateUsd,
    r.boundUsd,
    r.actualUsd,
    r.settledAt,
  ];
}

export function settledCostOfRow(row: SettledCostRow): SettledCostRecord {
  return {
    id: row.id,
    account: row.account,
    model: row.model,
    kind: row.kind as ItemKind,
    resolution: row.resolution,
    finalResolution: row.final_resolution,
    durationS: row.duration_s === null ? null : Number(row.duration_s),
    sizeBucket: Number(row.size_bucket),
    estimateUsd: Number(row.estimate_usd),
    boundUsd: Number(row.bound_usd),
    actualUsd: Number(row.actual_usd),
    settledAt: Number(row.settled_at),
  };
}
