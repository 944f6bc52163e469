// The journal's reads for one job, on the pool or on a transaction's client (decideAndApply reads
// through the same client it writes with). Answers match the SQLite adapter's, row for row.
import type { ItemState } from '../../core/states.js';
import { addKindCount, zeroKindCounts, type KindCounts } from '../kind-counts.js';
import { roundUsd } from '../../core/money.js';
import { fileBudgetOf } from '../../core/job-budget.js';
import { LISTING_CODE } from '../../core/orphans.js';
import { currentHolders, eventHolders, type TaskIdHolder } from '../../core/task-attach.js';
import type { JobRecord, Spend } from '../change.js';
import type { Item, ItemRow } from '../item.js';
import { OPEN_STATES, scopeCondition, type ResultRow, type ResultScope } from '../result-row.js';
import { runRecordOf, type RunRecord, type RunRow } from '../run-record.js';
import type { EventLogRecord, ItemEventRecord, ManifestRecord, ModelGroup, PriorRow } from '../store.js';
import type { JobContext } from './job-context.js';
import {
  EVENT_LOG_COLUMNS,
  eventLogRecordOf,
  ITEM_EVENT_COLUMNS,
  itemEventOf,
  type EventRow,
} from '../event-records.js';
import { ADOPTED_SQL, NOT_ORPHANED_SQL } from '../orphans.js';
import { ITEM_COLUMNS, toItem } from './item-row.js';
import { summaryRows } from './summaries.js';
import { kindStateRows, stateCounts } from '../summary-rows.js';
import type { Queryable } from './pool.js';
import { HELD_STATES } from './transitions.js';

const RESULT_COLUMNS = `seq, id, kind, state, response, response_status, request_id, last_error, task_id,
  final_resolution, output_path, sha256, bytes, meta`;

/** `owner`: only rows this runner holds (null: a store that is no runner holds none). */
export interface ItemFilter {
  states?: readonly ItemState[];
  kinds?: readonly string[];
  owner?: string | null;
  notOrphaned?: boolean;
  adopted?: boolean;
}

export class JobQueries {
  constructor(
    private readonly db: Queryable,
    private readonly ctx: JobContext,
  ) {}

  /** Rows of a query on this job; none when the job (or the schema) is not there. */
  private async rows<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    if (this.ctx.jobId === undefined) return [];
    const result = await this.db.query(sql, [this.ctx.jobId, ...values]);
    return result.rows as T[];
  }

  async getJob(): Promise<JobRecord | undefined> {
    const [row] = await this.rows<{
      name: string;
      manifest: string | null;
      options: string | null;
      budget_usd: number | null;
      job_file_budget: string | null;
      created_at: number;
      updated_at: number;
    }>('SELECT name, manifest, options, budget_usd, job_file_budget, created_at, updated_at FROM jobs WHERE id = $1');
    // The row exists from the first open; a job is there once saveJob wrote its manifest and options.
    if (!row || row.manifest === null || row.options === null) return undefined;
    return {
      name: row.name,
      manifest: row.manifest,
      options: JSON.parse(row.options) as Record<string, unknown>,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(typeof row.budget_usd === 'number' ? { budgetUsd: row.budget_usd } : {}),
      ...(fileBudgetOf(row.job_file_budget) !== undefined ? { jobFileBudget: fileBudgetOf(row.job_file_budget)! } : {}),
    };
  }

  async get(id: string, forUpdate = false): Promise<Item | undefined> {
    const [row] = await this.rows<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM items WHERE job_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return row ? toItem(row) : undefined;
  }

  /** The items with these ids, in the order asked (absent ids are skipped). */
  async getMany(ids: readonly string[]): Promise<Item[]> {
    const rows = await this.rows<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM items WHERE job_id = $1 AND id = ANY($2)`, [
      ids,
    ]);
    const byId = new Map(rows.map((row) => [row.id, toItem(row)]));
    return ids.map((id) => byId.get(id)).filter((item): item is Item => item !== undefined);
  }

  async counts(): Promise<Record<ItemState, number>> {
    return stateCounts(await summaryRows(this.db, this.ctx.jobId));
  }

  async countsByKind(): Promise<KindCounts> {
    const counts = zeroKindCounts();
    for (const { kind, state, n } of kindStateRows(await summaryRows(this.db, this.ctx.jobId)))
      addKindCount(counts, kind, state, n);
    return counts;
  }

  async spend(): Promise<Spend> {
    const [row] = await this.rows<{ reserved: number | null; actual: number | null }>(
      'SELECT SUM(reserved::numeric) AS reserved, SUM(actual::numeric) AS actual FROM item_sums WHERE job_id = $1',
    );
    return { reservedUsd: roundUsd(row?.reserved ?? 0), actualUsd: roundUsd(row?.actual ?? 0) };
  }

  async list(states: readonly ItemState[], limit = -1, afterSeq = 0): Promise<Item[]> {
    const rows = await this.rows<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM items WHERE job_id = $1 AND state = ANY($2) AND seq > $3
      ORDER BY seq${limit >= 0 ? ' LIMIT $4' : ''}`,
      limit >= 0 ? [states, afterSeq, limit] : [states, afterSeq],
    );
    return rows.map(toItem);
  }

  /** One page of iterate(): up to `pageSize` items after `afterSeq`. */
  async page(filter: ItemFilter, afterSeq: number, pageSize: number): Promise<Item[]> {
    return (await this.rowsOf<ItemRow>(ITEM_COLUMNS, filter, afterSeq, pageSize)).map(toItem);
  }

  /** As page(), with only the `columns` asked for (a read that needs a few of a row's columns skips the rest). */
  async rowsOf<R>(columns: string, filter: ItemFilter, afterSeq: number, pageSize: number): Promise<R[]> {
    const where = ['job_id = $1', 'seq > $2'];
    const values: unknown[] = [afterSeq];
    if (filter.states) {
      values.push(filter.states);
      where.push(`state = ANY($${values.length + 1})`);
    }
    if (filter.kinds) {
      values.push(filter.kinds);
      where.push(`kind = ANY($${values.length + 1})`);
    }
    if (filter.notOrphaned) where.push(NOT_ORPHANED_SQL);
    if (filter.adopted) where.push(ADOPTED_SQL);
    if (filter.owner !== undefined) {
      if (filter.owner === null) return [];
      values.push(filter.owner, HELD_STATES);
      where.push(`owner = $${values.length}`, `state = ANY($${values.length + 1})`);
    }
    values.push(pageSize);
    return this.rows<R>(
      `SELECT ${columns} FROM items WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${values.length + 1}`,
      values,
    );
  }

  async *iterate(filter: ItemFilter = {}, pageSize = 2000): AsyncGenerator<Item> {
    for (let after = 0; ;) {
      const page = await this.page(filter, after, pageSize);
      if (page.length === 0) return;
      yield* page;
      after = page[page.length - 1]!.seq;
    }
  }

  async events(itemId: string): Promise<ItemEventRecord[]> {
    const rows = await this.rows<Omit<EventRow, 'seq' | 'item_id'>>(
      `SELECT ${ITEM_EVENT_COLUMNS} FROM events WHERE job_id = $1 AND item_id = $2 ORDER BY seq`,
      [itemId],
    );
    return rows.map(itemEventOf);
  }

  async eventLogPage(afterSeq: number, limit: number): Promise<EventLogRecord[]> {
    const rows = await this.rows<EventRow>(
      `SELECT ${EVENT_LOG_COLUMNS} FROM events WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [afterSeq, limit],
    );
    return rows.map(eventLogRecordOf);
  }

  async lastSubmitTimes(ids: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    if (ids.length === 0) return found;
    const rows = await this.rows<{ item_id: string; at: number }>(
      `SELECT DISTINCT ON (item_id) item_id, at FROM events
      WHERE job_id = $1 AND item_id = ANY($2) AND event = 'submit' ORDER BY item_id, seq DESC`,
      [ids],
    );
    for (const row of rows) found.set(row.item_id, row.at);
    return found;
  }

  async abandonedWhileUncertain(failedIds: readonly string[]): Promise<Set<string>> {
    const abandoned = new Set<string>();
    if (failedIds.length === 0) return abandoned;
    const rows = await this.rows<{ item_id: string; event: string; from_state: string | null }>(
      `SELECT DISTINCT ON (item_id) item_id, event, from_state
      FROM events WHERE job_id = $1 AND item_id = ANY($2) AND to_state = 'failed' AND from_state IS DISTINCT FROM 'failed'
      ORDER BY item_id, seq DESC`,
      [[...new Set(failedIds)]],
    );
    for (const row of rows) if (row.event === 'abandon' && row.from_state === 'uncertain') abandoned.add(row.item_id);
    return abandoned;
  }

  /**
   * Every job of the database, this one's rows first: a task id is one task on the gateway, whichever
   * job's row holds it (one database for every night's job).
   */
  async taskIdHolders(taskId: string): Promise<TaskIdHolder[]> {
    const job = 'CASE WHEN x.job_id = $1 THEN NULL ELSE j.name END AS job';
    const current = await this.rows<{
      item_id: string;
      job: string | null;
      task_id: string | null;
      response: string | null;
    }>(
      `SELECT x.id AS item_id, ${job}, x.task_id, x.response FROM items x JOIN jobs j ON j.id = x.job_id
      WHERE x.task_id = $2 OR (x.kind = 'video' AND strpos(x.response, $3) > 0)
      ORDER BY x.job_id <> $1, x.job_id, x.seq`,
      [taskId, JSON.stringify(taskId)],
    );
    const events = await this.rows<{
      item_id: string;
      job: string | null;
      event: 'accept' | 'attach';
      detail: string | null;
    }>(
      `SELECT x.item_id, ${job}, x.event, x.detail FROM events x JOIN jobs j ON j.id = x.job_id
      WHERE x.event IN ('accept', 'attach') AND strpos(x.detail, $2) > 0 ORDER BY x.job_id <> $1, x.job_id, x.seq`,
      [JSON.stringify(taskId)],
    );
    return [...currentHolders(current, taskId), ...eventHolders(events, taskId)];
  }

  async priors(ids: readonly string[]): Promise<Map<string, PriorRow>> {
    const found = new Map<string, PriorRow>();
    if (ids.length === 0) return found;
    const rows = await this.rows<PriorRow & { id: string }>(
      `SELECT id, content_hash, state, orphan, reserved_usd, actual_usd, source_file, source_line
      FROM items WHERE job_id = $1 AND id = ANY($2)`,
      [ids],
    );
    for (const { id, ...prior } of rows) found.set(id, prior);
    return found;
  }

  /**
   * As the SQLite adapter's (sqlite/model-groups.ts): each group with its first row in manifest order; orphaned rows
   * left out.
   */
  async modelGroups(states: readonly ItemState[]): Promise<ModelGroup[]> {
    const rows = await this.rows<{
      kind: string;
      model: string | null;
      resolution: string | null;
      rows: number;
      id: string;
      state: ItemState;
      source_file: string;
      source_line: number;
    }>(
      `SELECT g.kind, g.model, g.resolution, g.rows, i.id, i.state, i.source_file, i.source_line
       FROM (SELECT kind, model, resolution, COUNT(*) AS rows, MIN(seq) AS first FROM items
             WHERE job_id = $1 AND state = ANY($2) AND orphan <> ${LISTING_CODE.orphaned} GROUP BY kind, model, resolution) g
       JOIN items i ON i.job_id = $1 AND i.seq = g.first ORDER BY g.first`,
      [states],
    );
    return rows.map((r) => ({
      kind: r.kind,
      model: r.model,
      resolution: r.resolution,
      rows: r.rows,
      first: { id: r.id, state: r.state, sourceFile: r.source_file, sourceLine: r.source_line },
    }));
  }

  /** The records for `paths`; every record of the job without. */
  async manifestRecords(paths?: readonly string[]): Promise<Map<string, ManifestRecord>> {
    const found = new Map<string, ManifestRecord>();
    if (paths?.length === 0) return found;
    const rows = await this.rows<ManifestRecord & { path: string }>(
      `SELECT path, bytes, sha256, rows FROM manifests WHERE job_id = $1${paths ? ' AND path = ANY($2)' : ''}`,
      paths ? [paths] : [],
    );
    for (const { path, ...record } of rows) found.set(path, record);
    return found;
  }

  /**
   * Rows in the scope after `afterSeq`, at most `limit`, stopping at the row whose bodies reach `maxBytes`
   * (SQLite's rule). Body lengths are read first, so no body past the cut leaves the server.
   */
  async resultRows(
    afterSeq: number,
    limit: number,
    maxBytes: number,
    scope: ResultScope = 'with-line',
  ): Promise<ResultRow[]> {
    const rows = scopeCondition(scope);
    const sizes = await this.rows<{ seq: number; body: number }>(
      `SELECT seq, COALESCE(length(response), 0) + COALESCE(length(last_error), 0) AS body
      FROM items WHERE job_id = $1 AND seq > $2 AND ${rows} ORDER BY seq LIMIT $3`,
      [afterSeq, limit],
    );
    if (sizes.length === 0) return [];
    let last = sizes[sizes.length - 1]!.seq;
    let bytes = 0;
    for (const { seq, body } of sizes) {
      bytes += body;
      if (bytes >= maxBytes) {
        last = seq;
        break;
      }
    }
    return this.rows<ResultRow>(
      `SELECT ${RESULT_COLUMNS} FROM items WHERE job_id = $1 AND seq > $2 AND seq <= $3 AND ${rows} ORDER BY seq`,
      [afterSeq, last],
    );
  }

  async firstOpenSeq(): Promise<number | undefined> {
    const [row] = await this.rows<{ open: number | null; video: number | null }>(
      `SELECT
      (SELECT MIN(seq) FROM items WHERE job_id = $1 AND state = ANY($2)) AS open,
      (SELECT MIN(seq) FROM items WHERE job_id = $1 AND state = 'succeeded' AND kind NOT IN ('chat', 'responses')) AS video`,
      [OPEN_STATES],
    );
    const seqs = [row?.open, row?.video].filter((s): s is number => typeof s === 'number');
    return seqs.length === 0 ? undefined : Math.min(...seqs);
  }

  async lastRun(): Promise<RunRecord | undefined> {
    const [row] = await this.rows<RunRow>('SELECT * FROM runs WHERE job_id = $1 ORDER BY id DESC LIMIT 1');
    return row && runRecordOf(row);
  }
}
