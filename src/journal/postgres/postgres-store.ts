// The PostgreSQL adapter of the journal interface: one database holds many jobs, each store is one job.
// Every write is one transaction on a pooled client, compare-and-set on the rows' states, so runners
// and operators on other hosts can share a job's rows.
import type { KindCounts } from '../kind-counts.js';
import type pg from 'pg';
import type { ItemState } from '../../core/states.js';
import type { TaskIdHolder } from '../../core/task-attach.js';
import type { Change, JobRecord, Move, Spend } from '../change.js';
import type { Item, ItemPatch, ItemRow } from '../item.js';
import type { ResultRow, ResultScope } from '../result-row.js';
import type { RunEnd, RunRecord } from '../run-record.js';
import type { OpenStoreOptions } from '../open-options.js';
import type {
  Coordination,
  Durability,
  EventLogRecord,
  IngestOptions,
  IngestWriter,
  ItemEventRecord,
  ItemFilter as StoreItemFilter,
  JobCancel,
  JobInput,
  JournalCapabilities,
  JournalQueries,
  JournalStore,
  KeptStartForecast,
  ManifestRecord,
  ModelGroup,
  PriorRow,
  JobActivity,
  ReportSums,
  RowFacets,
  ReportRowSource,
  RowQuery,
  VideoTaskTimes,
  RunnerMembership,
  RunnerView,
} from '../store.js';
import { StaleTransitionError } from '../change.js';

import { hostname } from 'node:os';
import { redactDatabaseUrl, connectionError } from './database-url.js';
import { followedConnectionLoss } from './connection-loss.js';
import { connectPool, inTransaction } from './pool.js';
import { NOT_ORPHANED_SQL, type ForgetOutcome, type ListingRow, type OrphanSummary } from '../orphans.js';
import { adopt, forget, listings, orphanSummary } from './orphans.js';
import { migrate, schemaVersion, SCHEMA_VERSION } from './schema.js';
import { JobQueries } from './queries.js';
import { annotateItem, applyChanges, jobCancelOf, type Writer } from './transitions.js';
import { storeChanges } from '../store-changes.js';
import { applyBatch, batchable } from './batch-apply.js';
import { DB_NOW_MS } from './db-time.js';
import { ITEM_COLUMNS, toItem } from './item-row.js';
import { PgCoordination } from './coordination.js';
import { jobDrifts, recordDrift } from './drifts.js';
import { recordSettledCosts, settledCosts } from './settled-costs.js';
import type { SettledCostRecord } from '../settled-costs.js';
import type { JournalSnapshot } from '../settled-costs.js';
import { openSnapshot } from './snapshot.js';
import type { SeenDrift } from '../../core/seen-drift.js';
import type { StartForecast } from '../../core/start-forecast.js';
import { keepStartForecast, saveJobRecord } from './start-forecast.js';
import type { JobNotices } from '../job-notices.js';
import { PgJobNotices } from './job-notices.js';
import { writeLockSql } from './advisory-locks.js';
import { PgIngestWriter } from './ingest-writer.js';
import { PgMembership } from './membership.js';
import { activity, compactSummaries, COMPACT_EVERY, rowPage, summaryRows, videoTaskTimes } from './summaries.js';
import { rowFacets, sumRows } from '../summary-rows.js';
import { REPORT_COLUMNS, reportRowOf } from '../row-times.js';
import { errnoOf } from '../../core/config-error.js';

export { redactDatabaseUrl } from './database-url.js';
export { migrate, SCHEMA_VERSION } from './schema.js';
import { BatchLeaseLostError, LockLostError, NewerSchemaError } from '../errors.js';

const MAX_RUN_MESSAGE = 1000;

export type PostgresOpenOptions = Pick<OpenStoreOptions, 'job' | 'clock' | 'poolSize'> & {
  readonly?: boolean;
  /** The pool is another's (a reader of many jobs): close() leaves it open. */
  sharedPool?: boolean;
};

/** Many runners on one job; a runner that lost its lease still notes what it received (another holds the job). */
const CAPABILITIES: JournalCapabilities = { sharedRunners: true, notesAfterLoss: true };

export class PostgresJournalStore implements JournalStore {
  readonly adapter = 'postgres' as const;
  readonly capabilities = CAPABILITIES;
  readonly membership: RunnerMembership;
  readonly coordination: Coordination;
  readonly notices: JobNotices;
  private readonly runnerMembership: PgMembership;
  private readonly clock: { now(): number };
  private readonly reads: JobQueries;
  private fencedBy: Error | undefined;
  private closed = false;
  private writesSinceCompact = 0;
  private readonly readonly: boolean;
  private readonly ownsPool: boolean;

  private constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    readonly job: string,
    private readonly jobId: number | undefined,
    options: PostgresOpenOptions,
  ) {
    this.readonly = options.readonly === true;
    this.ownsPool = options.sharedPool !== true;
    this.clock = options.clock ?? Date;
    this.reads = new JobQueries(pool, { jobId, location });
    this.runnerMembership = new PgMembership(
      pool,
      () => this.jobId,
      this.clock,
      `${location} (job '${job}')`,
      this.readonly,
    );
    this.membership = this.runnerMembership;
    this.coordination = new PgCoordination(pool, () => this.jobId, this.runnerMembership);
    this.notices = new PgJobNotices(pool, () => this.jobId, this.runnerMembership, this.coordination);
  }

  /**
   * Opens job `options.job` in the database `url` names, migrating the schema and creating the job
   * unless read-only (then a job, or a schema, that is not there reads as empty). A server that cannot
   * be reached is a ConfigError naming the URL without its password.
   */
  /** Job `job` read-only on a pool that reads many jobs (its owner checked the schema and ends it). */
  static async reading(pool: pg.Pool, location: string, job: string): Promise<PostgresJournalStore> {
    const jobId = await findJob(pool, job);
    return new PostgresJournalStore(pool, location, job, jobId, { job, readonly: true, sharedPool: true });
  }

  static async open(url: string, options: PostgresOpenOptions): Promise<PostgresJournalStore> {
    const location = redactDatabaseUrl(url);
    const pool = await connectPool(url, options.poolSize);
    try {
      const clock = options.clock ?? Date;
      let jobId: number | undefined;
      if (options.readonly) {
        const version = await schemaVersion(pool);
        if (version > SCHEMA_VERSION) throw new NewerSchemaError(location, version, SCHEMA_VERSION);
        jobId = version === 0 ? undefined : await findJob(pool, options.job);
      } else {
        await migrate(pool, location);
        jobId = await ensureJob(pool, options.job, clock.now());
      }
      return new PostgresJournalStore(pool, location, options.job, jobId, options);
    } catch (err) {
      await pool.end().catch(() => {});
      throw errnoOf(err) !== undefined ? connectionError(url, err) : err;
    }
  }

  now(): number {
    return this.clock.now();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  fence(reason: Error): void {
    this.fencedBy ??= reason;
  }

  /** A database is not a file that can be deleted or replaced under a run: there is nothing to rescue. */
  async rescue(): Promise<undefined> {
    return undefined;
  }

  /** The job's id, for a write; a read-only store has none to give (SQLite's read-only file refuses writes too). */
  private writableJob(): number {
    if (this.readonly || this.jobId === undefined)
      throw new Error(`${this.location}: job '${this.job}' was opened read-only`);
    return this.jobId;
  }

  /** As writableJob(), for the writes a fence stops (transitions, stores, notes), as SQLite's journal does. */
  private assertWritable(): number {
    if (this.fencedBy) throw this.fencedBy;
    return this.writableJob();
  }

  /**
   * First statement of every write transaction: the job's write lock (shared by transitions, alone for
   * decideAndApply), and, for a runner of the job, proof that it still is one. Its runner row is locked
   * against deletion until the commit, so a takeover cannot slip between this check and the writes.
   */
  private async enterWrite(client: pg.ClientBase, jobId: number, mode: 'shared' | 'exclusive'): Promise<void> {
    const runnerId = this.runnerMembership.runnerId;
    if (runnerId === undefined) {
      await client.query(`SELECT ${writeLockSql('$1', mode)}`, [jobId]);
      return;
    }
    // One round trip: the lock first (a CTE is run before the query that reads it), then the row, whose
    // lease must not have expired: a runner frozen past it finds its rows swept (or about to be).
    const own = await client.query(
      `WITH locked AS (SELECT ${writeLockSql('$1', mode)})
      SELECT 1 FROM locked, runners WHERE job_id = $1 AND runner_id = $2 AND swept_at IS NULL AND lease_until > ${DB_NOW_MS}
      FOR KEY SHARE OF runners`,
      [jobId, runnerId],
    );
    if (own.rowCount === 1) {
      this.runnerMembership.confirm();
      return;
    }
    const err = new LockLostError(`${this.location} (job '${this.job}')`);
    this.fence(err);
    throw err;
  }

  async getJob(): Promise<JobRecord | undefined> {
    return this.reads.getJob();
  }

  async saveJob(job: JobInput): Promise<void> {
    const jobId = this.writableJob();
    // The name is the job's key in a database of many: a save under another name would move the rows
    // away from the name the next run opens.
    if (job.name !== this.job)
      throw new Error(
        `${this.location}: cannot save job '${job.name}' into job '${this.job}' (a job's name is fixed when it is created)`,
      );
    await saveJobRecord(this.pool, jobId, job, this.now());
  }

  async keepStartForecast(forecast: StartForecast): Promise<KeptStartForecast | undefined> {
    return keepStartForecast(this.pool, this.assertWritable(), forecast);
  }

  async jobCancel(): Promise<JobCancel | undefined> {
    if (this.jobId === undefined) return undefined;
    return jobCancelOf(this.pool, this.jobId);
  }

  async setJobCancel(reason: string | undefined): Promise<JobCancel | undefined> {
    const jobId = this.writableJob();
    if (reason === undefined)
      await this.pool.query('UPDATE jobs SET cancelled_at = NULL, cancel_reason = NULL WHERE id = $1', [jobId]);
    else
      await this.pool.query(
        `UPDATE jobs SET cancelled_at = COALESCE(cancelled_at, ${DB_NOW_MS}), cancel_reason = $2 WHERE id = $1`,
        [jobId, reason],
      );
    return jobCancelOf(this.pool, jobId);
  }

  async get(id: string): Promise<Item | undefined> {
    return this.reads.get(id);
  }

  async counts(): Promise<Record<ItemState, number>> {
    return this.reads.counts();
  }

  async countsByKind(): Promise<KindCounts> {
    return this.reads.countsByKind();
  }

  async spend(): Promise<Spend> {
    return this.reads.spend();
  }

  async list(states: readonly ItemState[], limit = -1, afterSeq = 0): Promise<Item[]> {
    return this.reads.list(states, limit, afterSeq);
  }

  iterate({ mine, ...filter }: StoreItemFilter = {}, pageSize = 2000): AsyncGenerator<Item> {
    return this.reads.iterate(mine ? { ...filter, owner: this.runnerMembership.runnerId ?? null } : filter, pageSize);
  }

  /**
   * Pending rows for this runner, claimed with SKIP LOCKED: runners take disjoint rows and never wait on each other's.
   */
  async claimPending(limit: number, afterSeq: number): Promise<Item[]> {
    const runnerId = this.runnerMembership.runnerId;
    if (runnerId === undefined)
      return this.reads.page({ states: ['pending'], notOrphaned: true }, afterSeq, limit < 0 ? 2 ** 31 - 1 : limit);
    const jobId = this.assertWritable();
    this.runnerMembership.noteClaim();
    // The rows are picked (and locked) once, in a CTE: a subquery under UPDATE may be run again and
    // pick more than the limit.
    const { rows } = await this.pool.query<ItemRow>(
      `WITH picked AS (
        SELECT seq FROM items WHERE job_id = $1 AND state = 'pending' AND ${NOT_ORPHANED_SQL} AND seq > $3
          AND (claimed_by IS NULL OR claimed_by = $2
            OR claimed_by NOT IN (SELECT runner_id FROM runners WHERE job_id = $1 AND swept_at IS NULL))
        ORDER BY seq LIMIT $4 FOR UPDATE SKIP LOCKED)
      UPDATE items SET claimed_by = $2 FROM picked WHERE items.job_id = $1 AND items.seq = picked.seq
      RETURNING ${ITEM_COLUMNS.split(',')
        .map((c) => `items.${c.trim()}`)
        .join(', ')}`,
      [jobId, runnerId, afterSeq, limit < 0 ? null : limit],
    );
    return rows.map(toItem).sort((a, b) => a.seq - b.seq);
  }

  /**
   * The rows runners that are gone left mid-request become uncertain; what they held in flight becomes this runner's.
   */
  async recoverInterrupted(): Promise<Item[]> {
    return (await this.runnerMembership.sweep()).madeUncertain;
  }

  /** Who writes: this runner (when it is one), else an operator's command. */
  private writer(): Writer {
    return { runnerId: this.runnerMembership.runnerId };
  }

  async events(itemId: string): Promise<ItemEventRecord[]> {
    return this.reads.events(itemId);
  }

  async eventLogPage(afterSeq: number, limit: number): Promise<EventLogRecord[]> {
    return this.reads.eventLogPage(afterSeq, limit);
  }

  async reportSums(): Promise<ReportSums> {
    return sumRows(await summaryRows(this.pool, this.jobId));
  }

  async rowPage(query: RowQuery): Promise<Item[]> {
    return rowPage(this.pool, this.jobId, query);
  }

  async rowFacets(): Promise<RowFacets> {
    return rowFacets(await summaryRows(this.pool, this.jobId));
  }

  async activity(): Promise<JobActivity> {
    return activity(this.pool, this.jobId);
  }

  async reportRows(afterSeq: number, limit: number): Promise<ReportRowSource[]> {
    if (this.jobId === undefined) return [];
    const result = await this.pool.query<unknown[]>({
      text: `SELECT ${REPORT_COLUMNS.join(', ')} FROM items WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      values: [this.jobId, afterSeq, limit],
      rowMode: 'array',
    });
    return result.rows.map(reportRowOf);
  }

  async videoTaskTimes(): Promise<VideoTaskTimes> {
    return videoTaskTimes(this.pool, this.jobId);
  }

  /** Every COMPACT_EVERY writes of this process, the job's summary parts are folded into one per key. */
  private async wrote(jobId: number): Promise<void> {
    if (++this.writesSinceCompact < COMPACT_EVERY) return;
    this.writesSinceCompact = 0;
    await compactSummaries(this.pool, jobId);
  }

  async modelGroups(states: readonly ItemState[]): Promise<ModelGroup[]> {
    return this.reads.modelGroups(states);
  }

  async lastSubmitTimes(ids: readonly string[]): Promise<Map<string, number>> {
    return this.reads.lastSubmitTimes(ids);
  }

  async abandonedWhileUncertain(failedIds: readonly string[]): Promise<Set<string>> {
    return this.reads.abandonedWhileUncertain(failedIds);
  }

  async taskIdHolders(taskId: string): Promise<TaskIdHolder[]> {
    return this.reads.taskIdHolders(taskId);
  }

  async priors(ids: readonly string[]): Promise<Map<string, PriorRow>> {
    return this.reads.priors(ids);
  }

  async applyTransitions(changes: readonly Change[], options: { durability?: Durability } = {}): Promise<Move[]> {
    if (changes.length === 0) return [];
    const jobId = this.assertWritable();
    const relaxed = options.durability === 'relaxed';
    // The pipeline's group commits, in one round trip each.
    if (batchable(changes)) {
      const moves = await this.applyBatch(jobId, changes, relaxed);
      await this.wrote(jobId);
      return moves;
    }
    // Commits are durable on the server; a relaxed one may skip waiting for its WAL flush.
    const moves = await this.standing(() =>
      inTransaction(
        this.pool,
        async (client) => {
          await this.enterWrite(client, jobId, 'shared');
          return applyChanges(client, jobId, changes, this.now(), this.writer());
        },
        relaxed ? 'SET LOCAL synchronous_commit = off' : '',
      ),
    );
    await this.wrote(jobId);
    return moves;
  }

  private async applyBatch(jobId: number, changes: readonly Change[], defer: boolean): Promise<Move[]> {
    const runnerId = this.runnerMembership.runnerId;
    const moves = await this.standing(() => applyBatch(this.pool, jobId, runnerId, changes, this.now(), defer));
    if (runnerId !== undefined) this.runnerMembership.confirm();
    return moves;
  }

  /** A write the database refused for the runner's lost standing fences this store. */
  private async standing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof BatchLeaseLostError)) throw err;
      const lost = new LockLostError(`${this.location} (job '${this.job}')`);
      this.fence(lost);
      throw lost;
    }
  }

  async apply(changes: readonly Change[]): Promise<Item[]> {
    if (changes.length === 0) return [];
    const jobId = this.assertWritable();
    return this.standing(() =>
      inTransaction(this.pool, async (client) => {
        await this.enterWrite(client, jobId, 'shared');
        await applyChanges(client, jobId, changes, this.now(), this.writer());
        const items = new Map(
          (await new JobQueries(client, { jobId, location: this.location }).getMany(changes.map((c) => c.id))).map(
            (item) => [item.id, item],
          ),
        );
        return changes.map((change) => items.get(change.id)!);
      }),
    );
  }

  async markStored(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): Promise<void> {
    if (ids.length === 0) return;
    const jobId = this.assertWritable();
    try {
      await this.standing(() =>
        inTransaction(this.pool, async (client) => {
          await this.enterWrite(client, jobId, 'shared');
          // Whichever runner wrote the shared results file stores the rows it wrote, another runner's included.
          const writer = { ...this.writer(), anyOwner: true };
          await applyChanges(client, jobId, storeChanges(ids, outputPath, detail), this.now(), writer);
        }),
      );
    } catch (err) {
      // Refused on a repeat after its connection dropped at COMMIT: it landed when every row is stored.
      if (!followedConnectionLoss(err) || !(err instanceof StaleTransitionError)) throw err;
      const rows = await this.reads.getMany(ids);
      if (
        rows.length !== new Set(ids).size ||
        rows.some((row) => row.state !== 'downloaded' || row.outputPath !== outputPath)
      )
        throw err;
    }
    await this.wrote(jobId);
  }

  async noteUnrecordedTasks(tasks: ReadonlyArray<{ id: string; taskId: string }>): Promise<void> {
    // Past the fence on purpose: a note moves no row, and its task id is otherwise known only to this process.
    const note =
      "accepted by the gateway after this runner lost its lease; not the row's task: decide with `gbatch resolve <job> <id> --task-id <task>`";
    await this.noteUnrecorded('task-unrecorded', tasks, (t, runner) => ({ taskId: t.taskId, runner, note }));
  }

  async noteUnrecordedAnswers(answers: ReadonlyArray<{ id: string; attempt: number; answer: unknown }>): Promise<void> {
    // Past the fence on purpose, as above: the answer was billed, and this process alone holds it.
    const note =
      'received from the gateway after this runner lost its lease; settle the row from it with `gbatch resolve <job> <id> --recorded-answer`';
    await this.noteUnrecorded('answer-unrecorded', answers, (a, runner) => ({
      attempt: a.attempt,
      runner,
      answer: a.answer,
      note,
    }));
  }

  /** One event per row, in the row's present state: it records what this runner knows and moves nothing. */
  private async noteUnrecorded<T extends { id: string }>(
    event: string,
    rows: readonly T[],
    detail: (row: T, runner: string | null) => object,
  ): Promise<void> {
    const runner = this.runnerMembership.runnerId ?? null;
    await this.pool.query(
      `INSERT INTO events (job_id, item_id, at, event, from_state, to_state, detail)
      SELECT $1, t.id, $2, $5, i.state, i.state, t.detail FROM unnest($3::text[], $4::text[]) AS t(id, detail)
      JOIN items i ON i.job_id = $1 AND i.id = t.id`,
      [
        this.writableJob(),
        this.now(),
        rows.map((row) => row.id),
        rows.map((row) => JSON.stringify(detail(row, runner))),
        event,
      ],
    );
  }

  async annotate(id: string, patch: ItemPatch, note: string): Promise<void> {
    if (Object.values(patch).every((value) => value === undefined)) return;
    const jobId = this.assertWritable();
    await this.standing(() =>
      inTransaction(this.pool, async (client) => {
        await this.enterWrite(client, jobId, 'shared');
        await annotateItem(client, jobId, { id, note, patch }, this.now(), this.runnerMembership.runnerId);
      }),
    );
  }

  async recordDrift(seen: SeenDrift): Promise<void> {
    await recordDrift(this.pool, this.assertWritable(), seen, this.now());
  }

  async drifts(): Promise<SeenDrift[]> {
    return jobDrifts(this.pool, this.jobId);
  }

  /** The history is the database's, not the job's: a store that holds no job yet may merge into it. */
  async recordSettled(rows: readonly SettledCostRecord[]): Promise<number> {
    if (this.fencedBy) throw this.fencedBy;
    return recordSettledCosts(this.pool, rows);
  }

  async settledCosts(): Promise<SettledCostRecord[]> {
    return settledCosts(this.pool);
  }

  async snapshot(): Promise<JournalSnapshot> {
    return openSnapshot(this.pool, { jobId: this.jobId, location: this.location });
  }

  async flush(): Promise<void> {
    // Nothing to do: a commit with synchronous_commit off reaches disk within the server's WAL writer delay.
  }

  async decideAndApply<T>(
    decide: (
      reader: Pick<JournalQueries, 'get' | 'list' | 'iterate' | 'abandonedWhileUncertain'>,
    ) => Promise<{ changes: Change[]; result: T }>,
  ): Promise<T> {
    const jobId = this.writableJob();
    return this.standing(() =>
      inTransaction(this.pool, async (client) => {
        // The job's write lock alone: no transition of another runner lands between the reads and the writes.
        await this.enterWrite(client, jobId, 'exclusive');
        const reads = new JobQueries(client, { jobId, location: this.location });
        const { changes, result } = await decide({
          get: (id) => reads.get(id, true),
          list: (states, limit, afterSeq) => reads.list(states, limit, afterSeq),
          iterate: (filter, pageSize) => reads.iterate(filter, pageSize),
          abandonedWhileUncertain: (ids) => reads.abandonedWhileUncertain(ids),
        });
        if (changes.length > 0) {
          this.assertWritable();
          await applyChanges(client, jobId, changes, this.now(), this.writer());
        }
        return result;
      }),
    );
  }

  async beginIngest(options: IngestOptions = {}): Promise<IngestWriter> {
    const jobId = this.writableJob();
    return PgIngestWriter.begin(this.pool, jobId, () => this.now(), {
      runnerId: this.runnerMembership.runnerId,
      ...options,
    });
  }

  async manifestRecords(paths?: readonly string[]): Promise<Map<string, ManifestRecord>> {
    return this.reads.manifestRecords(paths);
  }

  async orphans(limit: number): Promise<OrphanSummary> {
    return orphanSummary(this.pool, this.jobId, limit);
  }

  async listings(ids: readonly string[]): Promise<Map<string, ListingRow>> {
    return listings(this.pool, this.jobId, ids);
  }

  async adopt(ids: readonly string[]): Promise<string[]> {
    return adopt(this.pool, this.writableJob(), ids);
  }

  async forget(ids: readonly string[]): Promise<ForgetOutcome> {
    return forget(this.pool, this.writableJob(), ids);
  }

  async resultRows(afterSeq: number, limit: number, maxBytes: number, scope?: ResultScope): Promise<ResultRow[]> {
    return this.reads.resultRows(afterSeq, limit, maxBytes, scope);
  }

  async firstOpenSeq(): Promise<number | undefined> {
    return this.reads.firstOpenSeq();
  }

  async recordRunStart(): Promise<number> {
    const jobId = this.writableJob();
    const result = await this.pool.query<{ id: number }>(
      'INSERT INTO runs (job_id, pid, host, started_at) VALUES ($1, $2, $3, $4) RETURNING id',
      [jobId, process.pid, hostname(), this.now()],
    );
    return result.rows[0]!.id;
  }

  async recordRunEnd(id: number, end: RunEnd): Promise<void> {
    const jobId = this.writableJob();
    const message = end.message == null ? null : end.message.slice(0, MAX_RUN_MESSAGE);
    await this.pool.query(
      'UPDATE runs SET ended_at = $1, exit_code = $2, stop_reason = $3, message = $4 WHERE job_id = $5 AND id = $6',
      [this.now(), end.exitCode, end.stopReason ?? null, message, jobId, id],
    );
  }

  async lastRun(): Promise<RunRecord | undefined> {
    return this.reads.lastRun();
  }

  async runners(): Promise<RunnerView[]> {
    return this.membership.runners();
  }
}

async function findJob(pool: pg.Pool, name: string): Promise<number | undefined> {
  const found = await pool.query<{ id: number }>('SELECT id FROM jobs WHERE name = $1', [name]);
  return found.rows[0]?.id;
}

/** The job's id, creating its row (empty until saveJob) on the first open. */
async function ensureJob(pool: pg.Pool, name: string, now: number): Promise<number> {
  await pool.query(
    'INSERT INTO jobs (name, created_at, updated_at) VALUES ($1, $2, $2) ON CONFLICT (name) DO NOTHING',
    [name, now],
  );
  const id = await findJob(pool, name);
  if (id === undefined) throw new Error(`job '${name}' vanished while it was being opened`);
  return id;
}
