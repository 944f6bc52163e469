// The journal: one SQLite file per job, the source of truth for every item's state and money.
import Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { makeDirectoriesSync } from '../../io/make-directories.js';
import { dirname } from 'node:path';
import { ITEM_STATES, transition, type ItemEvent, type ItemState } from '../../core/states.js';
import { roundUsd } from '../../core/money.js';
import { isIntent, planChanges, type RowHead } from '../../core/plan-changes.js';
import { fileBudgetOf, fileBudgetText, type JobFileBudget } from '../../core/job-budget.js';
import { migrate } from './schema.js';
import { journalOpenError } from './open-error.js';
import { patchColumns, rowToItem, type Item, type ItemPatch, type ItemRow } from '../item.js';
import { LockLostError } from '../runner-standing.js';
import { RunnerLock } from './lock.js';
import { ResultRows } from '../result-rows.js';
import { openDatabase } from './open-database.js';
import { hasWideValues, itemColumns, WideValues } from './wide-values.js';
import { EventLog, hasEventLog, logPage } from './event-log.js';
import { ADOPTED_SQL, NOT_ORPHANED_SQL } from '../orphans.js';
import { hasListing } from './orphans.js';
import { JobCancelledError, StaleTransitionError, type Change, type JobRecord, type Move, type Spend } from '../change.js';

export { StaleTransitionError, type Change, type JobRecord, type Move, type Spend };

export interface ItemFilter { states?: readonly ItemState[]; kinds?: readonly string[]; notOrphaned?: boolean; adopted?: boolean }

export interface JournalOptions {
  clock?: { now(): number };
  /** 'full' syncs every commit to disk (the default); 'off' is for benchmarks only. */
  sync?: 'full' | 'off';
  readonly?: boolean;
  /** How the WAL file is made durable after deferred commits (injected by tests). */
  syncWal?: (walPath: string) => void;
}

/** An fsync of the WAL from outside SQLite: what a `synchronous = FULL` commit would have done. */
function fsyncWalFile(walPath: string): void {
  let fd: number;
  try {
    fd = openSync(walPath, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // checkpointed and removed: already in the synced database
    throw err;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class Journal {
  /** @internal the driver's handle: left out of the published types (better-sqlite3's are a dev dependency). */
  readonly db: Database.Database;
  readonly lock: RunnerLock;
  private readonly clock: { now(): number };
  private readonly updateCache = new Map<string, Database.Statement>();
  private resultRows: ResultRows | undefined;
  private spendCache: Spend | undefined;
  private readonly syncMode: 'full' | 'off';
  private readonly syncWal: (walPath: string) => void;
  /** Commits made with their fsync deferred and not yet made durable by syncDeferred(). */
  private deferredCommits = 0;
  private cancelStmt: Database.Statement | undefined;
  private cancelColumns: boolean | undefined;
  private listingColumn: boolean | undefined;
  /** Set once this process may no longer write (its runner lock was lost): every write throws it. */
  private fencedBy: Error | undefined;
  /** The item columns as read (the wide values joined back in, on a journal that keeps them out of line). */
  private readonly itemColumns: string;
  /** Where a writable journal puts the wide values; undefined on an older read-only journal. */
  private readonly wide: WideValues | undefined;
  /** Where a writable journal appends events; undefined on a read-only one. */
  private readonly eventLog: EventLog | undefined;
  private readonly stmt: {
    get: Database.Statement<[string], ItemRow>;
    head: Database.Statement<[string], { seq: number; state: string; reserved_usd: number; actual_usd: number | null }>;
    counts: Database.Statement<[], { state: string; n: number }>;
    spend: Database.Statement<[], { reserved: number | null; actual: number | null }>;
    store: Database.Statement<[string, string | number, number, string]>;
  };

  private constructor(readonly file: string, options: JournalOptions) {
    this.clock = options.clock ?? Date;
    this.syncMode = options.sync ?? 'full';
    this.syncWal = options.syncWal ?? fsyncWalFile;
    if (!options.readonly) makeDirectoriesSync(dirname(file));
    this.db = openDatabase(file, { readonly: options.readonly ?? false, sync: options.sync ?? 'full' });
    try {
      if (!options.readonly) {
        migrate(this.db, file);
        probeWritable(this.db);
      }
      this.lock = new RunnerLock(this.db, this.clock);
      const wide = hasWideValues(this.db);
      this.itemColumns = itemColumns(this.db);
      this.wide = wide && !options.readonly ? new WideValues(this.db) : undefined;
      this.eventLog = !options.readonly && hasEventLog(this.db) ? new EventLog(this.db) : undefined;
      this.stmt = this.prepareStatements();
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  private prepareStatements(): Journal['stmt'] {
    return {
      get: this.db.prepare(`SELECT ${this.itemColumns} FROM items WHERE id = ?`),
      head: this.db.prepare('SELECT seq, state, reserved_usd, actual_usd FROM items WHERE id = ?'),
      counts: this.db.prepare('SELECT state, COUNT(*) AS n FROM items GROUP BY state'),
      spend: this.db.prepare('SELECT SUM(reserved_usd) AS reserved, SUM(actual_usd) AS actual FROM items'),
      store: this.db.prepare(`UPDATE items SET state = ?, ${this.wide ? 'output_ref' : 'output_path'} = ?, updated_at = ? WHERE id = ? AND state = 'succeeded'`),
    };
  }

  /** Opens (or creates) the journal; a path that cannot be one throws a ConfigError naming it. */
  static open(file: string, options: JournalOptions = {}): Journal {
    try {
      return new Journal(file, options);
    } catch (err) {
      throw journalOpenError(file, err) ?? err;
    }
  }

  close(): void {
    if (!this.db.open) return;
    this.syncDeferred();
    this.db.close();
  }

  /**
   * Makes every deferred commit durable: one fsync of the WAL. SQLite has already written their frames,
   * so a killed process loses none of them; only a power cut before this call could.
   */
  syncDeferred(): void {
    if (this.deferredCommits === 0) return;
    this.syncWal(`${this.file}-wal`);
    this.deferredCommits = 0;
  }

  get deferredCommitCount(): number {
    return this.deferredCommits;
  }

  now(): number {
    return this.clock.now();
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

  getJob(): JobRecord | undefined {
    const row = this.db.prepare('SELECT * FROM job WHERE id = 1').get() as
      { name: string; manifest: string; options: string; created_at: number; updated_at: number; budget_usd?: number | null; job_file_budget?: string | null } | undefined;
    if (!row) return undefined;
    const options = JSON.parse(row.options) as Record<string, unknown>;
    // A journal not yet migrated (opened read-only) has no budget column: its last run's options say it.
    const budget = 'budget_usd' in row ? row.budget_usd : options.budget;
    return {
      name: row.name, manifest: row.manifest, options, createdAt: row.created_at, updatedAt: row.updated_at,
      ...(typeof budget === 'number' ? { budgetUsd: budget } : {}),
      ...(fileBudgetOf(row.job_file_budget) !== undefined ? { jobFileBudget: fileBudgetOf(row.job_file_budget)! } : {}),
    };
  }

  /** `budgetUsd` is the job's budget in force from now on (undefined: none). */
  saveJob(job: { name: string; manifest: string; options: Record<string, unknown>; budgetUsd?: number | undefined; jobFileBudget?: JobFileBudget | undefined }): void {
    const now = this.now();
    const fileBudget = job.jobFileBudget === undefined ? null : fileBudgetText(job.jobFileBudget);
    this.db.prepare(`INSERT INTO job (id, name, manifest, options, budget_usd, job_file_budget, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET name = excluded.name, manifest = excluded.manifest, options = excluded.options,
        budget_usd = excluded.budget_usd, job_file_budget = COALESCE(excluded.job_file_budget, job.job_file_budget), updated_at = excluded.updated_at`)
      .run(job.name, job.manifest, JSON.stringify(job.options), job.budgetUsd ?? null, fileBudget, now, now);
  }

  /** The job's cancellation (`gbatch cancel`); undefined on a journal older than it (read-only, not migrated). */
  jobCancel(): { at: number; reason: string } | undefined {
    if (!this.hasCancelColumns()) return undefined;
    this.cancelStmt ??= this.db.prepare('SELECT cancelled_at, cancel_reason FROM job WHERE id = 1');
    const row = this.cancelStmt.get() as { cancelled_at: number | null; cancel_reason: string | null } | undefined;
    return row?.cancelled_at == null ? undefined : { at: row.cancelled_at, reason: row.cancel_reason ?? '' };
  }

  /** Cancels the job (the first cancellation's time stays) or, with undefined, lifts it. A journal without a job yet: nothing (undefined). */
  setJobCancel(reason: string | undefined): { at: number; reason: string } | undefined {
    this.assertWritable();
    const now = this.now();
    if (reason === undefined) this.db.prepare('UPDATE job SET cancelled_at = NULL, cancel_reason = NULL WHERE id = 1').run();
    else this.db.prepare('UPDATE job SET cancelled_at = COALESCE(cancelled_at, ?), cancel_reason = ? WHERE id = 1').run(now, reason);
    return this.jobCancel();
  }

  private hasCancelColumns(): boolean {
    return (this.cancelColumns ??= this.db.prepare(`SELECT 1 FROM pragma_table_info('job') WHERE name = 'cancelled_at'`).get() !== undefined);
  }

  get(id: string): Item | undefined {
    const row = this.stmt.get.get(id);
    return row ? rowToItem(row) : undefined;
  }

  counts(): Record<ItemState, number> {
    const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
    for (const { state, n } of this.stmt.counts.all()) counts[state as ItemState] = n;
    return counts;
  }

  /** Money held by the journal: reservations not yet settled, and settled actual charges. */
  spend(): Spend {
    if (!this.spendCache) {
      const row = this.stmt.spend.get()!;
      this.spendCache = { reservedUsd: roundUsd(row.reserved ?? 0), actualUsd: roundUsd(row.actual ?? 0) };
    }
    return { ...this.spendCache };
  }

  /** Items in any of `states`, in manifest order, after `afterSeq`. */
  list(states: readonly ItemState[], limit = -1, afterSeq = 0): Item[] {
    const marks = states.map(() => '?').join(', ');
    const rows = this.db.prepare(`SELECT ${this.itemColumns} FROM items WHERE state IN (${marks}) AND seq > ? ORDER BY seq LIMIT ?`)
      .all(...states, afterSeq, limit) as ItemRow[];
    return rows.map(rowToItem);
  }

  /** Items in manifest order, optionally filtered, read in pages so a million rows never sit in memory. */
  *iterate(filter: ItemFilter = {}, pageSize = 2000): Generator<Item> {
    let after = 0;
    for (;;) {
      const rows = this.page(filter, after, pageSize);
      if (rows.length === 0) return;
      yield* rows;
      after = rows[rows.length - 1]!.seq;
    }
  }

  /** One page of iterate(): up to `pageSize` items after `afterSeq`. */
  page(filter: ItemFilter, afterSeq: number, pageSize: number): Item[] {
    const where = ['seq > ?'];
    const args: unknown[] = [];
    if (filter.states) where.push(`state IN (${filter.states.map(() => '?').join(', ')})`), args.push(...filter.states);
    if (filter.kinds) where.push(`kind IN (${filter.kinds.map(() => '?').join(', ')})`), args.push(...filter.kinds);
    // A journal of an older gbatch (read-only, not migrated) lists every row: none orphaned, none adopted.
    if (filter.notOrphaned || filter.adopted) {
      if (!(this.listingColumn ??= hasListing(this.db))) {
        if (filter.adopted) return [];
      } else where.push(filter.adopted ? ADOPTED_SQL : NOT_ORPHANED_SQL);
    }
    const page = this.db.prepare(`SELECT ${this.itemColumns} FROM items WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`);
    return (page.all(afterSeq, ...args, pageSize) as ItemRow[]).map(rowToItem);
  }

  /** The rows results.jsonl is rebuilt from. */
  get results(): ResultRows {
    return (this.resultRows ??= new ResultRows(this.db));
  }

  /**
   * Applies transitions in ONE transaction (group commit): each is checked by the pure transition table
   * and written compare-and-set on its from-state. Any failure rolls all of them back.
   */
  apply(changes: readonly Change[]): Item[] {
    this.applyTransitions(changes);
    return changes.map((change) => this.get(change.id)!);
  }

  /**
   * As apply(), returning only each change's from/to states and time (no re-read of the rows). With
   * `deferSync` the commit skips its fsync (synchronous = NORMAL for this transaction); syncDeferred()
   * or any later synced commit makes it durable.
   */
  applyTransitions(changes: readonly Change[], options: { deferSync?: boolean } = {}): Move[] {
    if (changes.length === 0) return [];
    this.assertWritable();
    const defer = options.deferSync === true && this.syncMode === 'full';
    if (!defer) return this.runTransitions(changes);
    this.db.pragma('synchronous = NORMAL');
    try {
      const moves = this.runTransitions(changes);
      this.deferredCommits++;
      return moves;
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  private runTransitions(changes: readonly Change[]): Move[] {
    const now = this.now();
    const run = this.db.transaction(() => {
      this.assertOwner();
      // Inside the transaction: a cancellation committed before it is seen, so no intent is written after it.
      // Before the plan: a cancelled job refuses the batch whatever else it holds.
      const intent = changes.find((c) => isIntent(c.event));
      if (intent && this.jobCancel()) throw new JobCancelledError(intent.id);
      const seqs = new Map<string, number>();
      const plan = planChanges(this.heads(changes, seqs), changes, { runner: undefined, now });
      plan.rows.forEach(({ change, from, to }, i) => {
        const { assignments, values, response } = this.rowWrite(change.patch ?? {});
        const sql = `UPDATE items SET state = ?, updated_at = ?${assignments.map((a) => `, ${a}`).join('')} WHERE id = ? AND state = ?`;
        let statement = this.updateCache.get(sql);
        if (!statement) {
          statement = this.db.prepare(sql);
          this.updateCache.set(sql, statement);
        }
        const result = statement.run(to, now, ...values, change.id, from);
        if (result.changes !== 1) throw new StaleTransitionError(change.id, change.event, from);
        if (response !== null) this.wide!.storeAnswer(seqs.get(change.id)!, response);
        const event = plan.events[i]!;
        this.logEvent(event.itemId, event.at, event.event, event.from, event.to, event.detail);
      });
      return plan;
    });
    // IMMEDIATE: take the write lock before reading, so another process (a `resolve`) makes us wait
    // out busy_timeout instead of failing at once with SQLITE_BUSY on the read-then-write upgrade.
    const plan = this.rollingBack(() => run.immediate());
    if (this.spendCache) {
      this.spendCache.reservedUsd = roundUsd(this.spendCache.reservedUsd + plan.money.reservedUsd);
      this.spendCache.actualUsd = roundUsd(this.spendCache.actualUsd + plan.money.actualUsd);
    }
    return plan.rows.map(({ from, to }) => ({ from, to, at: now }));
  }

  /** The heads of the rows `changes` name (an unknown id is left out: the plan refuses it); their seqs into `seqs`. */
  private heads(changes: readonly Change[], seqs: Map<string, number>): Map<string, RowHead> {
    const heads = new Map<string, RowHead>();
    for (const { id } of changes) {
      if (seqs.has(id)) continue;
      const head = this.stmt.head.get(id);
      if (!head) continue;
      seqs.set(id, head.seq);
      heads.set(id, { state: head.state as ItemState, reservedUsd: head.reserved_usd, actualUsd: head.actual_usd });
    }
    return heads;
  }

  /**
   * The `store` transition (succeeded -> downloaded) for many answered items whose results line is
   * durable, in one transaction: the bulk form of applying `store` to each, without the per-change
   * re-read, since every from-state and patch is the same.
   */
  markStored(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): void {
    if (ids.length === 0) return;
    this.assertWritable();
    const to = transition('succeeded', 'store');
    const now = this.now();
    const detailText = JSON.stringify(detail);
    this.rollingBack(() => this.db.transaction(() => {
      this.assertOwner();
      const output = this.wide ? this.wide.textId(outputPath) : outputPath;
      for (const id of ids) {
        if (this.stmt.store.run(to, output, now, id).changes !== 1) throw new StaleTransitionError(id, 'store', 'succeeded');
        this.logEvent(id, now, 'store', 'succeeded', to, detailText);
      }
    }).immediate());
  }

  /** Patches fields without a state change (e.g. a poll's gateway charge); logged as a note event. */
  annotate(id: string, patch: ItemPatch, note: string): void {
    if (patchColumns(patch).assignments.length === 0) return;
    this.assertWritable();
    this.rollingBack(() => this.db.transaction(() => {
      this.assertOwner();
      const head = this.stmt.head.get(id);
      if (!head) throw new Error(`unknown item '${id}'`);
      const { assignments, values, response } = this.rowWrite(patch);
      const sets = [...assignments, 'updated_at = ?'].join(', ');
      this.db.prepare(`UPDATE items SET ${sets} WHERE id = ?`).run(...values, this.now(), id);
      if (response !== null) this.wide!.storeAnswer(head.seq, response);
      this.logEvent(id, this.now(), note, head.state, head.state, null);
      if (patch.reservedUsd !== undefined || patch.actualUsd !== undefined) this.spendCache = undefined;
    }).immediate());
  }

  /**
   * The row's part of a patch: its `column = ?` assignments and values, and the response to store out
   * of line after the row's update (null: none). Call inside the write transaction (it may add a text).
   */
  private rowWrite(patch: ItemPatch): { assignments: string[]; values: unknown[]; response: string | null } {
    if (!this.wide) return { ...patchColumns(patch), response: null };
    const split = this.wide.split(patch);
    const row = patchColumns(split.rowPatch);
    return { assignments: [...row.assignments, ...split.assignments], values: [...row.values, ...split.values], response: split.response };
  }

  /** Runs a write transaction; if it rolls back, text ids and event codes handed out inside it are forgotten. */
  private rollingBack<T>(write: () => T): T {
    try {
      return write();
    } catch (err) {
      this.forgetUncommitted();
      throw err;
    }
  }

  /** After a transaction rolled back outside this class (decideAndApply): forget what was handed out inside it. */
  forgetUncommitted(): void {
    this.wide?.forgetUncommitted();
    this.eventLog?.forgetUncommitted();
  }

  private logEvent(itemId: string, at: number, event: string, from: string | null, to: string, detail: string | null): void {
    if (!this.eventLog) throw new Error(`${this.file}: the journal is open read-only`);
    this.eventLog.append(itemId, at, event, from, to, detail);
  }

  events(itemId: string): Array<{ at: number; event: string; from: string | null; to: string; detail: unknown }> {
    const rows = this.db.prepare('SELECT at, event, from_state, to_state, detail FROM events WHERE item_id = ? ORDER BY seq')
      .all(itemId) as Array<{ at: number; event: string; from_state: string | null; to_state: string; detail: string | null }>;
    return rows.map((r) => ({ at: r.at, event: r.event, from: r.from_state, to: r.to_state, detail: r.detail ? JSON.parse(r.detail) : null }));
  }

  eventLogPage(afterSeq: number, limit: number): Array<{ seq: number; itemId: string; at: number; event: string; from: string | null; to: string; detail: unknown }> {
    const rows = logPage(this.db, afterSeq, limit);
    return rows.map((r) => ({ seq: r.seq, itemId: r.item_id, at: r.at, event: r.event, from: r.from_state, to: r.to_state, detail: r.detail ? JSON.parse(r.detail) : null }));
  }
}

/**
 * SQLite opens a file it cannot write read-only without a word: find out at open, not at the first write.
 * The probe does not wait for the write lock: a holder (a live runner, stopped mid-commit perhaps) proves
 * the file writable, and who holds the journal is for the runner lock to judge, at once.
 */
function probeWritable(db: Database.Database): void {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return;
    throw err;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
  try {
    db.pragma(`user_version = ${db.pragma('user_version', { simple: true }) as number}`);
  } finally {
    db.exec('ROLLBACK');
  }
}
