// The SQLite adapter of the journal interface: one file per job, one runner (its lock), the source of truth
// for every item's state and money. Each call runs on the synchronous driver and resolves at once, so the
// pipeline pays a promise, not a thread hop.
import type Database from 'better-sqlite3';
import { makeDirectoriesSync } from '../../io/make-directories.js';
import { dirname } from 'node:path';
import { ITEM_STATES, type ItemState } from '../../core/states.js';
import { addKindCount, zeroKindCounts, type KindCounts } from '../kind-counts.js';
import { roundUsd } from '../../core/money.js';
import type { TaskIdHolder } from '../../core/task-attach.js';
import {
  isIntent,
  overBudget,
  planChanges,
  planNote,
  type ChangePlan,
  type MoneyMove,
  type RowHead,
} from '../../core/plan-changes.js';
import { storeChanges } from '../store-changes.js';
import { migrate, refuseNewer } from './schema.js';
import { journalOpenError } from './open-error.js';
import { patchColumns, rowToItem, type Item, type ItemPatch, type ItemRow } from '../item.js';

import { RunnerLock } from './lock.js';
import { ResultRows } from './result-rows.js';
import { takePage, type ResultRow, type ResultScope } from '../result-row.js';
import type { RunEnd, RunRecord } from '../run-record.js';
import type { ForgetOutcome, ListingRow, OrphanSummary } from '../orphans.js';
import type {
  Durability,
  EventLogRecord,
  IngestWriter,
  ItemEventRecord,
  ItemFilter,
  JobCancel,
  JobInput,
  JournalCapabilities,
  JournalQueries,
  JournalRescue,
  JournalStore,
  KeptStartForecast,
  ManifestRecord,
  ModelGroup,
  JobActivity,
  PriorRow,
  ReportSums,
  RowFacets,
  RowQuery,
  ReportRowSource,
  RunnerView,
  VideoTaskTimes,
} from '../store.js';
import { reportRowOf } from '../row-times.js';
import { reportColumns, ReportTexts } from './wide-values.js';
import { OneRunnerCoordination, OneRunnerNotices } from '../one-runner.js';
import { isBusy, openDatabase, probeWritable } from './open-database.js';
import { fsyncWalFile } from './wal-sync.js';
import { hasWideValues, itemColumns, WideValues } from './wide-values.js';
import { EventLog, hasEventLog } from './event-log.js';
import { StaleTransitionError, type Change, type JobRecord, type Move, type Spend } from '../change.js';
import { JobRow } from './job-row.js';
import { SqliteDrifts } from './drifts.js';
import { SqliteSettledCosts } from './settled-costs.js';
import type { SettledCostRecord } from '../settled-costs.js';
import type { JournalSnapshot } from '../settled-costs.js';
import { openSnapshot } from './snapshot.js';
import type { SeenDrift } from '../../core/seen-drift.js';
import type { StartForecast } from '../../core/start-forecast.js';
import { eventLogRecords, itemEvents, ItemReads, manifestRecords, priors, reportSums } from './queries.js';
import { abandonedWhileUncertain, lastSubmitTimes, taskIdHolders } from './history.js';
import { modelGroups } from './model-groups.js';
import { adopt, forget, listings, orphanSummary } from './orphans.js';
import { lastRun, recordRunEnd, recordRunStart } from './runs.js';
import { IngestSession } from './ingest-session.js';
import { SqliteIngestWriter } from './ingest-writer.js';
import { SqliteMembership } from './membership.js';
import { FileWatch } from './file-watch.js';
import { rescueReport, saveCopy } from './rescue.js';
import { hasItemSums, summaryCounts, summaryRows, summarySpend } from './item-sums.js';
import { kindStateRows, rowFacets, sumRows } from '../summary-rows.js';
import { rowPage } from './row-page.js';
import { activity, submittedTimes, videoDurations } from './activity.js';
import { foldVideoTaskTimes } from '../video-task-times.js';
import { timeAssignments, timeValues } from '../item-times.js';
import { BudgetExceededError, JobCancelledError, JournalWriteBusyError, LockLostError } from '../errors.js';

export interface SqliteOpenOptions {
  clock?: { now(): number };
  /** 'full' syncs every commit to disk (the default); 'off' is for benchmarks only. */
  sync?: 'full' | 'off';
  readonly?: boolean;
  /** How the WAL file is made durable after deferred commits (injected by tests). */
  syncWal?: (walPath: string) => void;
}

/** One file, one runner (its lock): nothing to share; a file deleted, replaced or taken takes no notes. */
const CAPABILITIES: JournalCapabilities = { sharedRunners: false, notesAfterLoss: false };

export class SqliteJournal implements JournalStore {
  readonly adapter = 'sqlite' as const;
  readonly capabilities = CAPABILITIES;
  readonly membership: SqliteMembership;
  readonly coordination: OneRunnerCoordination = new OneRunnerCoordination(this);
  readonly notices = new OneRunnerNotices();
  /** The driver's handle (better-sqlite3's types are a dev dependency: never published). */
  private readonly db: Database.Database;
  /** The runner lock (one runner per file). */
  private readonly lock: RunnerLock;
  /** The item reads (lists and pages of rows). */
  private readonly reads: ItemReads;
  /** The job's row. */
  private readonly jobRow: JobRow;
  private readonly clock: { now(): number };
  private readonly updateCache = new Map<string, Database.Statement>();
  private resultRowsReader: ResultRows | undefined;
  private driftRows: SqliteDrifts | undefined;
  private spendCache: Spend | undefined;
  private readonly syncMode: 'full' | 'off';
  private readonly syncWal: (walPath: string) => void;
  /** Commits made with their fsync deferred and not yet made durable by syncDeferred(). */
  private deferredCommits = 0;
  /** Set once this process may no longer write (its runner lock was lost): every write throws it. */
  private fencedBy: Error | undefined;
  /** The item columns as read (the wide values joined back in, on a journal that keeps them out of line). */
  private readonly itemColumns: string;
  /** Where a writable journal puts the wide values; undefined on an older read-only journal. */
  private readonly wide: WideValues | undefined;
  /** Where a writable journal appends events; undefined on a read-only one. */
  private readonly eventLog: EventLog | undefined;
  private readonly watch: FileWatch;
  private reportPage: Database.Statement | undefined;
  /** The journal keeps summaries (schema step 15); a read-only journal of an older gbatch may not. */
  private readonly summaries: boolean;
  private readonly stmt: {
    get: Database.Statement<[string], ItemRow>;
    head: Database.Statement<
      [string],
      { seq: number; state: string; reserved_usd: number; actual_usd: number | null; carried_usd: number }
    >;
    counts: Database.Statement<[], { state: string; n: number }>;
    kindCounts: Database.Statement<[], { kind: string; state: string; n: number }>;
    spend: Database.Statement<[], { reserved: number | null; actual: number | null }>;
  };

  private constructor(
    private readonly file: string,
    options: SqliteOpenOptions,
  ) {
    this.clock = options.clock ?? Date;
    this.syncMode = options.sync ?? 'full';
    this.syncWal = options.syncWal ?? fsyncWalFile;
    if (!options.readonly) makeDirectoriesSync(dirname(file));
    this.db = openDatabase(file, { readonly: options.readonly ?? false, sync: options.sync ?? 'full' });
    try {
      if (!options.readonly) {
        migrate(this.db, file);
        probeWritable(this.db);
      } else refuseNewer(this.db, file);
      this.lock = new RunnerLock(this.db, this.clock);
      const wide = hasWideValues(this.db);
      this.itemColumns = itemColumns(this.db);
      this.wide = wide && !options.readonly ? new WideValues(this.db) : undefined;
      this.eventLog = !options.readonly && hasEventLog(this.db) ? new EventLog(this.db) : undefined;
      this.summaries = hasItemSums(this.db);
      this.stmt = this.prepareStatements();
      this.reads = new ItemReads(this.db, this.itemColumns);
      this.jobRow = new JobRow(this.db);
      this.watch = new FileWatch(file);
      this.membership = new SqliteMembership(file, this.lock, this.watch, {
        submittingRows: () => this.stateCounts().submitting,
        // A beat lost with the machine only makes the lock look stale sooner: its commit need not wait on the disk.
        beat: () => this.deferringSync(() => this.lock.heartbeat()),
      });
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  private prepareStatements(): SqliteJournal['stmt'] {
    return {
      get: this.db.prepare(`SELECT ${this.itemColumns} FROM items WHERE id = ?`),
      head: this.db.prepare(
        `SELECT seq, state, reserved_usd, actual_usd, ${carriedColumn(this.db)} FROM items WHERE id = ?`,
      ),
      counts: this.db.prepare('SELECT state, COUNT(*) AS n FROM items GROUP BY state'),
      kindCounts: this.db.prepare('SELECT kind, state, COUNT(*) AS n FROM items GROUP BY kind, state'),
      spend: this.db.prepare('SELECT SUM(reserved_usd) AS reserved, SUM(actual_usd) AS actual FROM items'),
    };
  }

  /** Opens (or creates) the journal; a path that cannot be one throws a ConfigError naming it. */
  static open(file: string, options: SqliteOpenOptions = {}): SqliteJournal {
    try {
      return new SqliteJournal(file, options);
    } catch (err) {
      throw journalOpenError(file, err) ?? err;
    }
  }

  get location(): string {
    return this.file;
  }

  now(): number {
    return this.clock.now();
  }

  async close(): Promise<void> {
    this.closeNow();
  }

  /** As close(), at once. A journal lost under its run leaves none of its side files at the path. */
  private closeNow(): void {
    if (!this.db.open) return;
    this.syncDeferredNow();
    this.db.close();
    this.watch.removeOwnSidecars();
  }

  /** One fsync of the WAL for the relaxed commits since the last. */
  async flush(): Promise<void> {
    this.syncDeferredNow();
  }

  async noteUnrecordedTasks(): Promise<void> {
    throw new Error(
      `${this.location}: an SQLite journal takes no notes from a runner that lost it (capabilities.notesAfterLoss)`,
    );
  }

  async noteUnrecordedAnswers(): Promise<void> {
    throw new Error(
      `${this.location}: an SQLite journal takes no notes from a runner that lost it (capabilities.notesAfterLoss)`,
    );
  }

  async runners(): Promise<RunnerView[]> {
    return this.membership.runners();
  }

  /**
   * Makes every deferred commit durable: one fsync of the WAL. SQLite has already written
   * their frames, so a killed process loses none of them; only a power cut before this call could.
   */
  private syncDeferredNow(): void {
    if (this.deferredCommits === 0) return;
    this.syncWal(`${this.file}-wal`);
    this.deferredCommits = 0;
  }

  /** How many commits wait for their fsync (syncDeferredNow). */
  private get deferredCommitCount(): number {
    return this.deferredCommits;
  }

  /** From now on every write of this connection throws `reason`: the journal is no longer ours to change. */
  fence(reason: Error): void {
    this.fencedBy ??= reason;
  }

  private assertWritable(): void {
    if (this.fencedBy) throw this.fencedBy;
  }

  /** Inside a write transaction: a runner whose lock was taken from it writes nothing more (a fencing check). */
  private assertOwner(): void {
    if (!this.lock.lost()) return;
    const err = new LockLostError(this.file);
    this.fence(err);
    throw err;
  }

  /**
   * The journal's file was deleted or replaced under this run: the lock is let go (the copy must not name
   * this soon dead process as its runner), the open journal is saved beside the path, and what it holds
   * that the operator must know is returned. Undefined while the file is still this journal's.
   */
  async rescue(): Promise<JournalRescue | undefined> {
    if (!this.watch.lost()) return undefined;
    this.lock.release();
    return rescueReport(this.db, saveCopy(this.db, this.file, Date.now()));
  }

  async getJob(): Promise<JobRecord | undefined> {
    return this.jobRow.read();
  }

  async saveJob(job: JobInput): Promise<void> {
    this.jobRow.write(job, this.now());
  }

  async keepStartForecast(forecast: StartForecast): Promise<KeptStartForecast | undefined> {
    this.assertWritable();
    try {
      return this.jobRow.keepStartForecast(forecast);
    } catch (err) {
      throw this.classified(err);
    }
  }

  async jobCancel(): Promise<JobCancel | undefined> {
    return this.jobRow.cancel();
  }

  async setJobCancel(reason: string | undefined): Promise<JobCancel | undefined> {
    this.assertWritable();
    try {
      return this.jobRow.setCancel(reason, this.now());
    } catch (err) {
      throw this.classified(err);
    }
  }

  async get(id: string): Promise<Item | undefined> {
    return this.item(id);
  }

  /** As get(), at once. */
  private item(id: string): Item | undefined {
    const row = this.stmt.get.get(id);
    return row ? rowToItem(row) : undefined;
  }

  async counts(): Promise<Record<ItemState, number>> {
    return this.stateCounts();
  }

  /** As counts(), at once. */
  private stateCounts(): Record<ItemState, number> {
    if (this.summaries) return summaryCounts(this.db);
    const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
    for (const { state, n } of this.stmt.counts.all()) counts[state as ItemState] = n;
    return counts;
  }

  async countsByKind(): Promise<KindCounts> {
    const counts = zeroKindCounts();
    const grouped = this.summaries ? kindStateRows(summaryRows(this.db)) : this.stmt.kindCounts.all();
    for (const { kind, state, n } of grouped) addKindCount(counts, kind, state, n);
    return counts;
  }

  async spend(): Promise<Spend> {
    return this.currentSpend();
  }

  /** Money held by the journal, at once: reservations not yet settled, and settled actual charges. */
  private currentSpend(): Spend {
    if (!this.spendCache) {
      const row = this.summaries ? summarySpend(this.db) : this.stmt.spend.get()!;
      this.spendCache = { reservedUsd: roundUsd(row.reserved ?? 0), actualUsd: roundUsd(row.actual ?? 0) };
    }
    return { ...this.spendCache };
  }

  async recordDrift(seen: SeenDrift): Promise<void> {
    this.assertWritable();
    this.driftTable().record(seen, this.now());
  }

  async drifts(): Promise<SeenDrift[]> {
    return this.driftTable().list();
  }

  async recordSettled(rows: readonly SettledCostRecord[]): Promise<number> {
    this.assertWritable();
    // Derived from rows the journal holds already: its commit needs no fsync of its own (a run settles rows in
    // a stream, and an fsync here stalled every slot's next send); the next synced commit or close covers it.
    return this.deferringSync(() => new SqliteSettledCosts(this.db).record(rows));
  }

  async settledCosts(): Promise<SettledCostRecord[]> {
    return new SqliteSettledCosts(this.db).list();
  }

  async snapshot(): Promise<JournalSnapshot> {
    return openSnapshot(this.file);
  }

  /** Prepared on first use: a journal opened read-only by an older gbatch's schema has no such table. */
  private driftTable(): SqliteDrifts {
    this.driftRows ??= new SqliteDrifts(this.db);
    return this.driftRows;
  }

  async list(states: readonly ItemState[], limit = -1, afterSeq = 0): Promise<Item[]> {
    return this.reads.list(states, limit, afterSeq);
  }

  async *iterate({ mine: _mine, ...filter }: ItemFilter = {}, pageSize = 2000): AsyncGenerator<Item> {
    // Pages, not one statement: it would stay open across the caller's awaits.
    for (let after = 0; ;) {
      const page = this.reads.page(filter, after, pageSize);
      if (page.length === 0) return;
      yield* page;
      after = page[page.length - 1]!.seq;
    }
  }

  /** One runner per file: every pending row that is not orphaned is this runner's to send. */
  async claimPending(limit: number, afterSeq: number): Promise<Item[]> {
    return this.reads.page({ states: ['pending'], notOrphaned: true }, afterSeq, limit);
  }

  /** One runner per file, and this one holds the lock: every `submitting` row was left by a runner that stopped. */
  async recoverInterrupted(): Promise<Item[]> {
    const interrupted = this.reads.list(['submitting']);
    this.applyNow(
      interrupted.map((item) => ({
        id: item.id,
        event: 'lose' as const,
        expect: 'submitting' as const,
        patch: {
          lastError: {
            message: `the runner stopped while attempt ${item.attempts} may have been on the wire; the gateway may have kept it`,
          },
        },
        detail: { reason: 'interrupted', attempt: item.attempts },
      })),
    );
    return interrupted;
  }

  async events(itemId: string): Promise<ItemEventRecord[]> {
    return itemEvents(this.db, itemId);
  }

  async eventLogPage(afterSeq: number, limit: number): Promise<EventLogRecord[]> {
    return eventLogRecords(this.db, afterSeq, limit);
  }

  async reportSums(): Promise<ReportSums> {
    return this.summaries ? sumRows(summaryRows(this.db)) : reportSums(this.db);
  }

  async rowPage(query: RowQuery): Promise<Item[]> {
    if (this.summaries) return rowPage(this.db, this.itemColumns, query);
    // An older journal, read-only: its rows walked in manifest order, a page at a time.
    const page: Item[] = [];
    const { states, kinds } = query;
    for (let after = query.afterSeq ?? 0; page.length < query.limit;) {
      const rows = this.reads.page({ states, kinds }, after, 2000);
      if (rows.length === 0) break;
      for (const item of rows) {
        if (query.model !== undefined && item.model !== query.model) continue;
        if (query.errorCode !== undefined && item.lastError?.code !== query.errorCode) continue;
        if (query.idPrefix !== undefined && !item.id.startsWith(query.idPrefix)) continue;
        if (page.push(item) >= query.limit) break;
      }
      after = rows[rows.length - 1]!.seq;
    }
    return page;
  }

  async rowFacets(): Promise<RowFacets> {
    if (this.summaries) return rowFacets(summaryRows(this.db));
    const rows = this.db
      .prepare(
        `SELECT state, kind, IFNULL(model, '') AS model, '' AS resolution,
          IFNULL(CASE WHEN json_valid(last_error) THEN CAST(json_extract(last_error, '$.code') AS TEXT) END, '') AS error_code,
          COUNT(*) AS items FROM items GROUP BY 1, 2, 3, 5`,
      )
      .all() as Parameters<typeof rowFacets>[0];
    return rowFacets(rows);
  }

  async activity(): Promise<JobActivity> {
    return activity(this.db);
  }

  async reportRows(afterSeq: number, limit: number): Promise<ReportRowSource[] | undefined> {
    if (!this.summaries) return undefined;
    this.reportPage ??= this.db
      .prepare(`SELECT ${reportColumns(this.db)} FROM items WHERE seq > ? ORDER BY seq LIMIT ?`)
      .raw();
    // Per page: a text id handed out in a transaction rolled back may name another text later.
    const texts = new ReportTexts(this.db);
    return (this.reportPage.all(afterSeq, limit) as unknown[][]).map((row) => reportRowOf(texts.resolve(row)));
  }

  async videoTaskTimes(): Promise<VideoTaskTimes> {
    if (this.summaries) return videoDurations(this.db);
    // An older journal, read-only: its log folded.
    return foldVideoTaskTimes(this.eventLogPages());
  }

  private *eventLogPages(): Generator<EventLogRecord> {
    for (let after = 0; ;) {
      const page = eventLogRecords(this.db, after, 5000);
      if (page.length === 0) return;
      yield* page;
      after = page[page.length - 1]!.seq;
    }
  }

  async lastSubmitTimes(ids: readonly string[]): Promise<Map<string, number>> {
    // Each row keeps its last submission's time: no walk back through the log.
    if (this.summaries) return submittedTimes(this.db, ids);
    return lastSubmitTimes(this.db, ids);
  }

  async abandonedWhileUncertain(failedIds: readonly string[]): Promise<Set<string>> {
    return abandonedWhileUncertain(this.db, failedIds);
  }

  async taskIdHolders(taskId: string): Promise<TaskIdHolder[]> {
    return taskIdHolders(this.db, taskId);
  }

  async priors(ids: readonly string[]): Promise<Map<string, PriorRow>> {
    return priors(this.db, ids);
  }

  async modelGroups(states: readonly ItemState[]): Promise<ModelGroup[]> {
    return modelGroups(this.db, states);
  }

  async manifestRecords(paths?: readonly string[]): Promise<Map<string, ManifestRecord>> {
    return manifestRecords(this.db, paths);
  }

  async orphans(limit: number): Promise<OrphanSummary> {
    return orphanSummary(this.db, limit);
  }

  async listings(ids: readonly string[]): Promise<Map<string, ListingRow>> {
    return listings(this.db, ids);
  }

  async adopt(ids: readonly string[]): Promise<string[]> {
    return adopt(this.db, ids);
  }

  async forget(ids: readonly string[]): Promise<ForgetOutcome> {
    return forget(this.db, ids);
  }

  /** The rows results.jsonl is rebuilt from. */
  private get results(): ResultRows {
    return (this.resultRowsReader ??= new ResultRows(this.db));
  }

  async resultRows(afterSeq: number, limit: number, maxBytes: number, scope?: ResultScope): Promise<ResultRow[]> {
    return takePage(this.results.iterate(afterSeq, limit, scope), maxBytes);
  }

  async firstOpenSeq(): Promise<number | undefined> {
    return this.results.firstOpenSeq();
  }

  async recordRunStart(): Promise<number> {
    return recordRunStart(this.db, this.now());
  }

  async recordRunEnd(id: number, end: RunEnd): Promise<void> {
    recordRunEnd(this.db, this.now(), id, end);
  }

  async lastRun(): Promise<RunRecord | undefined> {
    return lastRun(this.db);
  }

  async beginIngest(): Promise<IngestWriter> {
    const target = { db: this.db, now: () => this.now(), currentSpend: () => this.currentSpend() };
    return new SqliteIngestWriter(this.db, new IngestSession(target), () => this.now());
  }

  async applyTransitions(changes: readonly Change[], options: { durability?: Durability } = {}): Promise<Move[]> {
    return this.transitionsNow(changes, { deferSync: options.durability === 'relaxed' });
  }

  async apply(changes: readonly Change[]): Promise<Item[]> {
    return this.applyNow(changes);
  }

  /** As apply(), at once. */
  private applyNow(changes: readonly Change[]): Item[] {
    this.transitionsNow(changes);
    return changes.map((change) => this.item(change.id)!);
  }

  /**
   * Applies transitions in ONE transaction (group commit): each is checked by the pure
   * transition table and written compare-and-set on its from-state. Any failure rolls all of them back.
   * With `deferSync` the commit skips its fsync (synchronous = NORMAL for this transaction);
   * syncDeferred() or any later synced commit makes it durable.
   */
  private transitionsNow(changes: readonly Change[], options: { deferSync?: boolean } = {}): Move[] {
    if (changes.length === 0) return [];
    this.assertWritable();
    if (options.deferSync !== true) return this.runTransitions(changes);
    return this.deferringSync(() => this.runTransitions(changes));
  }

  /** Runs a write whose commit skips its fsync (synchronous = NORMAL for it), counted for syncDeferred(). */
  private deferringSync<T>(write: () => T): T {
    // Inside a transaction (an ingest's) the commit is the transaction's, and its level cannot change meanwhile.
    if (this.syncMode !== 'full' || this.db.inTransaction) return write();
    this.db.pragma('synchronous = NORMAL');
    try {
      const written = write();
      this.deferredCommits++;
      return written;
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  private runTransitions(changes: readonly Change[]): Move[] {
    const now = this.now();
    const plan = this.writing(() => {
      // Inside the transaction: a cancellation committed before it is seen, so no intent is written after it.
      // Before the plan: a cancelled job refuses the batch whatever else it holds.
      const intent = changes.find((c) => isIntent(c.event));
      if (intent && this.jobRow.cancel()) throw new JobCancelledError(intent.id);
      const seqs = new Map<string, number>();
      const plan = planChanges(this.heads(changes, seqs), changes, { runner: undefined, now });
      this.writePlan(plan, seqs, now);
      return plan;
    });
    return plan.rows.map(({ from, to }) => ({ from, to, at: now }));
  }

  /**
   * Runs `plan` in one write transaction: the owner checked first, the write lock taken before any read
   * (IMMEDIATE: another process, a `resolve`, makes us wait out busy_timeout instead of failing at once
   * with SQLITE_BUSY on the read-then-write upgrade). The cached spend follows the plan's money.
   */
  private writing(plan: () => ChangePlan): ChangePlan {
    const run = this.db.transaction(() => {
      this.assertOwner();
      return plan();
    });
    const done = this.rollingBack(() => run.immediate());
    if (this.spendCache) {
      this.spendCache.reservedUsd = roundUsd(this.spendCache.reservedUsd + done.money.reservedUsd);
      this.spendCache.actualUsd = roundUsd(this.spendCache.actualUsd + done.money.actualUsd);
    }
    return done;
  }

  /**
   * Writes a plan inside the caller's transaction: each row compare-and-set on its from-state, its
   * events, and the budget asked when a reservation rises (the job's money after the write within its budget).
   */
  private writePlan(plan: ChangePlan, seqs: ReadonlyMap<string, number>, now: number): void {
    plan.rows.forEach(({ change, from, to, money }, i) => {
      const written = this.rowWrite({ ...change.patch, ...money });
      const { response } = written;
      const times = this.summaries ? timeAssignments(from, to) : [];
      const assignments = [...written.assignments, ...times];
      const values = [...written.values, ...timeValues(times, now)];
      const sql = `UPDATE items SET state = ?, updated_at = ?${assignments.map((a) => `, ${a}`).join('')} WHERE id = ? AND state = ?`;
      let statement = this.updateCache.get(sql);
      if (!statement) {
        statement = this.db.prepare(sql);
        this.updateCache.set(sql, statement);
      }
      const event = plan.events[i]!;
      const result = statement.run(to, now, ...values, change.id, from);
      if (result.changes !== 1) throw new StaleTransitionError(change.id, event.event, from);
      if (response !== null) this.wide!.storeAnswer(seqs.get(change.id)!, response);
      this.logEvent(event.itemId, event.at, event.event, event.from, event.to, event.detail);
    });
    if (plan.money.reservingId !== undefined) this.checkBudget(plan.money);
  }

  /** The budget guard: the job's money after a batch that reserves more stays within its budget. */
  private checkBudget(money: MoneyMove): void {
    const budget = this.jobRow.budget();
    if (budget === undefined) return;
    const row = this.summaries ? summarySpend(this.db) : this.stmt.spend.get()!;
    const after = { reservedUsd: row.reserved ?? 0, actualUsd: row.actual ?? 0 };
    if (!overBudget(after, budget)) return;
    const held = after.reservedUsd + after.actualUsd - money.reservedUsd - money.actualUsd;
    throw new BudgetExceededError(money.reservingId!, budget, roundUsd(held), roundUsd(money.reservedUsd));
  }

  /** The heads of the rows `changes` name (an unknown id is left out: the plan refuses it); their seqs into `seqs`. */
  private heads(changes: ReadonlyArray<{ id: string }>, seqs: Map<string, number>): Map<string, RowHead> {
    const heads = new Map<string, RowHead>();
    for (const { id } of changes) {
      if (seqs.has(id)) continue;
      const head = this.stmt.head.get(id);
      if (!head) continue;
      seqs.set(id, head.seq);
      heads.set(id, {
        state: head.state as ItemState,
        reservedUsd: head.reserved_usd,
        actualUsd: head.actual_usd,
        carriedUsd: head.carried_usd,
      });
    }
    return heads;
  }

  async markStored(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): Promise<void> {
    this.markStoredNow(ids, outputPath, detail);
  }

  /**
   * The `store` transition (succeeded -> downloaded) for many answered items whose results
   * line is durable, in one transaction.
   */
  private markStoredNow(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): void {
    this.transitionsNow(storeChanges(ids, outputPath, detail));
  }

  async annotate(id: string, patch: ItemPatch, note: string): Promise<void> {
    this.annotateNow(id, patch, note);
  }

  /** Patches fields without a state change (e.g. a poll's gateway charge); logged as a note event. */
  private annotateNow(id: string, patch: ItemPatch, note: string): void {
    if (patchColumns(patch).assignments.length === 0) return;
    this.assertWritable();
    const now = this.now();
    this.writing(() => {
      const seqs = new Map<string, number>();
      const plan = planNote(this.heads([{ id }], seqs), { id, note, patch }, { runner: undefined, now });
      this.writePlan(plan, seqs, now);
      return plan;
    });
  }

  async decideAndApply<T>(
    decide: (
      reader: Pick<JournalQueries, 'get' | 'list' | 'iterate' | 'abandonedWhileUncertain'>,
    ) => Promise<{ changes: Change[]; result: T }>,
  ): Promise<T> {
    // The reads below resolve synchronously, so nothing else runs on this connection until COMMIT; the
    // write lock taken first keeps other processes (a live runner) out between the reads and the writes.
    try {
      this.db.exec('BEGIN IMMEDIATE');
      const { changes, result } = await decide(this);
      this.applyNow(changes);
      this.db.exec('COMMIT');
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.forgetUncommitted();
      throw this.classified(err);
    }
  }

  /**
   * The row's part of a patch: its `column = ?` assignments and values, and the response to store out
   * of line after the row's update (null: none). Call inside the write transaction (it may add a text).
   */
  private rowWrite(patch: ItemPatch): { assignments: string[]; values: unknown[]; response: string | null } {
    if (!this.wide) return { ...patchColumns(patch), response: null };
    const split = this.wide.split(patch);
    const row = patchColumns(split.rowPatch);
    return {
      assignments: [...row.assignments, ...split.assignments],
      values: [...row.values, ...split.values],
      response: split.response,
    };
  }

  /** Runs a write transaction; if it rolls back, text ids and event codes handed out inside it are forgotten. */
  private rollingBack<T>(write: () => T): T {
    try {
      return write();
    } catch (err) {
      this.forgetUncommitted();
      throw this.classified(err);
    }
  }

  /** A driver's error as the journal's own: a write that waited out the busy timeout is JournalWriteBusyError. */
  private classified(err: unknown): unknown {
    return isBusy(err) ? new JournalWriteBusyError(this.file, { cause: err }) : err;
  }

  /** After a transaction rolled back outside this class (decideAndApply): forget what was handed out inside it. */
  private forgetUncommitted(): void {
    this.wide?.forgetUncommitted();
    this.eventLog?.forgetUncommitted();
  }

  private logEvent(
    itemId: string,
    at: number,
    event: string,
    from: string | null,
    to: string,
    detail: string | null,
  ): void {
    if (!this.eventLog) throw new Error(`${this.file}: the journal is open read-only`);
    this.eventLog.append(itemId, at, event, from, to, detail);
  }
}

/** A journal opened read-only keeps its schema: one older than the carried booking carries nothing. */
function carriedColumn(db: Database.Database): string {
  const has = db.prepare("SELECT 1 FROM pragma_table_info('items') WHERE name = 'carried_usd'").get() !== undefined;
  return has ? 'carried_usd' : '0 AS carried_usd';
}
