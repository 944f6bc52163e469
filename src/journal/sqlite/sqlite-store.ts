// The SQLite adapter of the journal interface: one file, one runner (its lock). Each call runs on the
// synchronous driver and resolves at once, so the pipeline pays a promise, not a thread hop.
import type { ItemState } from '../../core/states.js';
import type { TaskIdHolder } from '../../core/task-attach.js';
import type { Change, JobRecord, Move, Spend } from '../change.js';
import type { Item, ItemPatch } from '../item.js';
import { takePage, type ResultRow } from '../result-row.js';
import type { RunEnd, RunRecord } from '../runs.js';
import { lastRun, recordRunEnd, recordRunStart } from '../runs.js';
import { abandonedWhileUncertain, lastSubmitTimes, taskIdHolders } from '../history.js';
import type {
  Durability, EventLogRecord, IngestWriter, ItemEventRecord, ItemFilter, JobCancel, JobInput, JournalCapabilities, JournalQueries, JournalStore, ManifestPrint,
  ManifestRecord, ModelGroup, PriorRow, ReportSums, RunnerMembership, RunnerTakeover, RunnerView, SumRow, Takeover,
} from '../store.js';
import { OneRunnerCoordination, OneRunnerNotices } from '../one-runner.js';
import { IngestSession } from './ingest-session.js';
import type { IngestSummary } from '../ingest-rules.js';
import { Journal, type JournalOptions } from './journal.js';
import { modelGroups } from './model-groups.js';
import { priorQuery } from './narrow-keys.js';
import type { ForgetOutcome, ListingRow, OrphanSummary } from '../orphans.js';
import { adopt, forget, listings, orphanSummary } from './orphans.js';

const SUMS = `COUNT(*) AS items,
  SUM(actual_usd IS NOT NULL) AS settled,
  SUM(estimate_usd) AS estimated,
  SUM(actual_usd) AS actual,
  SUM(CASE WHEN actual_usd IS NOT NULL THEN estimate_usd END) AS settled_estimated,
  SUM(reserved_usd) AS reserved,
  SUM(CASE WHEN actual_usd > estimate_usd THEN actual_usd - estimate_usd END) AS over,
  SUM(gateway_charge_usd) AS gateway,
  COUNT(gateway_charge_usd) AS gateway_n,
  SUM(total_tokens) AS tokens`;

/** One file, one runner (its lock): nothing to share; a file deleted, replaced or taken takes no notes. */
const CAPABILITIES: JournalCapabilities = { sharedRunners: false, notesAfterLoss: false };

export class SqliteJournalStore implements JournalStore {
  readonly adapter = 'sqlite' as const;
  readonly capabilities = CAPABILITIES;
  readonly membership: RunnerMembership;
  readonly coordination: OneRunnerCoordination;
  readonly notices = new OneRunnerNotices();

  private constructor(readonly journal: Journal) {
    this.membership = new SqliteMembership(journal);
    this.coordination = new OneRunnerCoordination(this);
  }

  static open(file: string, options: JournalOptions = {}): SqliteJournalStore {
    return new SqliteJournalStore(Journal.open(file, options));
  }

  /** Wraps a journal already open (tests, and commands that hold one). */
  static wrap(journal: Journal): SqliteJournalStore {
    return new SqliteJournalStore(journal);
  }

  get location(): string {
    return this.journal.file;
  }

  now(): number {
    return this.journal.now();
  }

  async close(): Promise<void> {
    this.journal.close();
  }

  fence(reason: Error): void {
    this.journal.fence(reason);
  }

  async getJob(): Promise<JobRecord | undefined> {
    return this.journal.getJob();
  }

  async saveJob(job: JobInput): Promise<void> {
    this.journal.saveJob(job);
  }

  async jobCancel(): Promise<JobCancel | undefined> {
    return this.journal.jobCancel();
  }

  async setJobCancel(reason: string | undefined): Promise<JobCancel | undefined> {
    return this.journal.setJobCancel(reason);
  }

  async get(id: string): Promise<Item | undefined> {
    return this.journal.get(id);
  }

  async counts(): Promise<Record<ItemState, number>> {
    return this.journal.counts();
  }

  async spend(): Promise<Spend> {
    return this.journal.spend();
  }

  async list(states: readonly ItemState[], limit = -1, afterSeq = 0): Promise<Item[]> {
    return this.journal.list(states, limit, afterSeq);
  }

  async *iterate({ mine: _mine, ...filter }: ItemFilter = {}, pageSize = 2000): AsyncGenerator<Item> {
    // Pages, not the synchronous generator: its statement would stay open across the caller's awaits.
    for (let after = 0; ;) {
      const page = this.journal.page(filter, after, pageSize);
      if (page.length === 0) return;
      yield* page;
      after = page[page.length - 1]!.seq;
    }
  }

  /** One runner per file: every pending row that is not orphaned is this runner's to send. */
  async claimPending(limit: number, afterSeq: number): Promise<Item[]> {
    return this.journal.page({ states: ['pending'], notOrphaned: true }, afterSeq, limit);
  }

  /** One runner per file, and this one holds the lock: every `submitting` row was left by a runner that stopped. */
  async recoverInterrupted(): Promise<Item[]> {
    const interrupted = this.journal.list(['submitting']);
    this.journal.apply(interrupted.map((item) => ({
      id: item.id, event: 'lose' as const, expect: 'submitting' as const,
      patch: { lastError: { message: `the runner stopped while attempt ${item.attempts} may have been on the wire; the gateway may have kept it` } },
      detail: { reason: 'interrupted', attempt: item.attempts },
    })));
    return interrupted;
  }

  async events(itemId: string): Promise<ItemEventRecord[]> {
    return this.journal.events(itemId);
  }

  async eventLogPage(afterSeq: number, limit: number): Promise<EventLogRecord[]> {
    return this.journal.eventLogPage(afterSeq, limit);
  }

  async reportSums(): Promise<ReportSums> {
    const db = this.journal.db;
    // A journal written before the unmetered column (read-only, not migrated) has none unmetered.
    const hasUnmetered = db.prepare(`SELECT 1 FROM pragma_table_info('items') WHERE name = 'unmetered'`).get() !== undefined;
    const unmetered = hasUnmetered ? 'SUM(unmetered) AS unmetered' : '0 AS unmetered';
    const total = db.prepare(`SELECT ${SUMS}, ${unmetered} FROM items`).get() as SumRow;
    const groups = db.prepare(`SELECT model, resolution, ${SUMS} FROM items WHERE state != 'invalid'
      GROUP BY model, resolution ORDER BY model, resolution`).all() as Array<SumRow & { model: string; resolution: string | null }>;
    return { total, groups };
  }

  async lastSubmitTimes(ids: readonly string[]): Promise<Map<string, number>> {
    return lastSubmitTimes(this.journal, ids);
  }

  async abandonedWhileUncertain(failedIds: readonly string[]): Promise<Set<string>> {
    return abandonedWhileUncertain(this.journal, failedIds);
  }

  async modelGroups(states: readonly ItemState[]): Promise<ModelGroup[]> {
    return modelGroups(this.journal.db, states);
  }

  async taskIdHolders(taskId: string): Promise<TaskIdHolder[]> {
    return taskIdHolders(this.journal, taskId);
  }

  async priors(ids: readonly string[]): Promise<Map<string, PriorRow>> {
    const lookup = this.journal.db.prepare(priorQuery(this.journal.db));
    const found = new Map<string, PriorRow>();
    for (const id of ids) {
      const row = lookup.get(id) as PriorRow | undefined;
      if (row) found.set(id, row);
    }
    return found;
  }

  async applyTransitions(changes: readonly Change[], options: { durability?: Durability } = {}): Promise<Move[]> {
    return this.journal.applyTransitions(changes, { deferSync: options.durability === 'relaxed' });
  }

  async apply(changes: readonly Change[]): Promise<Item[]> {
    return this.journal.apply(changes);
  }

  async markStored(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): Promise<void> {
    this.journal.markStored(ids, outputPath, detail);
  }

  async annotate(id: string, patch: ItemPatch, note: string): Promise<void> {
    this.journal.annotate(id, patch, note);
  }

  async noteUnrecordedTasks(): Promise<void> {
    throw new Error(`${this.location}: an SQLite journal takes no notes from a runner that lost it (capabilities.notesAfterLoss)`);
  }

  async noteUnrecordedAnswers(): Promise<void> {
    throw new Error(`${this.location}: an SQLite journal takes no notes from a runner that lost it (capabilities.notesAfterLoss)`);
  }

  /** One fsync of the WAL for the relaxed commits since the last. */
  async flush(): Promise<void> {
    this.journal.syncDeferred();
  }

  async decideAndApply<T>(decide: (reader: Pick<JournalQueries, 'get' | 'list' | 'iterate' | 'abandonedWhileUncertain'>) => Promise<{ changes: Change[]; result: T }>): Promise<T> {
    const db = this.journal.db;
    // The reads below resolve synchronously, so nothing else runs on this connection until COMMIT; the
    // write lock taken first keeps other processes (a live runner) out between the reads and the writes.
    db.exec('BEGIN IMMEDIATE');
    try {
      const { changes, result } = await decide(this);
      this.journal.apply(changes);
      db.exec('COMMIT');
      return result;
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      this.journal.forgetUncommitted();
      throw err;
    }
  }

  async beginIngest(): Promise<IngestWriter> {
    return new SqliteIngestWriter(this.journal);
  }

  async manifestRecords(paths?: readonly string[]): Promise<Map<string, ManifestRecord>> {
    const found = new Map<string, ManifestRecord>();
    if (paths === undefined) {
      for (const { path, ...record } of this.journal.db.prepare('SELECT path, bytes, sha256, rows FROM manifests').all() as Array<ManifestRecord & { path: string }>) {
        found.set(path, record);
      }
      return found;
    }
    const known = this.journal.db.prepare('SELECT bytes, sha256, rows FROM manifests WHERE path = ?');
    for (const path of paths) {
      const row = known.get(path) as ManifestRecord | undefined;
      if (row) found.set(path, row);
    }
    return found;
  }

  async orphans(limit: number): Promise<OrphanSummary> {
    return orphanSummary(this.journal.db, limit);
  }

  async listings(ids: readonly string[]): Promise<Map<string, ListingRow>> {
    return listings(this.journal.db, ids);
  }

  async adopt(ids: readonly string[]): Promise<string[]> {
    return adopt(this.journal.db, ids);
  }

  async forget(ids: readonly string[]): Promise<ForgetOutcome> {
    return forget(this.journal.db, ids);
  }

  async resultRows(afterSeq: number, limit: number, maxBytes: number): Promise<ResultRow[]> {
    return takePage(this.journal.results.iterate(afterSeq, limit), maxBytes);
  }

  async firstOpenSeq(): Promise<number | undefined> {
    return this.journal.results.firstOpenSeq();
  }

  async recordRunStart(): Promise<number> {
    return recordRunStart(this.journal);
  }

  async recordRunEnd(id: number, end: RunEnd): Promise<void> {
    recordRunEnd(this.journal, id, end);
  }

  async lastRun(): Promise<RunRecord | undefined> {
    return lastRun(this.journal);
  }

  async runners(): Promise<RunnerView[]> {
    return this.membership.runners();
  }
}

class SqliteMembership implements RunnerMembership {
  constructor(private readonly journal: Journal) {}

  async acquire(): Promise<RunnerTakeover | undefined> {
    return this.journal.lock.acquire(this.journal.file);
  }

  async heartbeat(): Promise<boolean> {
    return this.journal.lock.heartbeat();
  }

  async release(): Promise<void> {
    this.journal.lock.release();
  }

  forget(): void {
    this.journal.lock.forget();
  }

  /** The lock keeps every other runner out: there is never anyone to take over from mid-run. */
  async sweep(): Promise<Takeover> {
    return { madeUncertain: [], adopted: [], released: 0 };
  }

  async othersWork(): Promise<{ held: number; claimable: number }> {
    return { held: 0, claimable: 0 };
  }

  /** The lock is checked inside every write transaction: nothing is sent on a lock lost before its intent. */
  confirmedAt(): number {
    return performance.now();
  }

  async acknowledgeCancel(): Promise<void> {
    this.journal.lock.acknowledgeCancel();
  }

  async runners(): Promise<RunnerView[]> {
    const holder = this.journal.lock.holderLiveness();
    if (!holder) return [];
    const { pid, host, heartbeatAt, startedAt, cancelSeenAt, alive, heartbeatAgeMs, basis } = holder;
    const rows = this.journal.counts().submitting;
    return [{ runnerId: `${host}:${pid}`, pid, host, startedAt, heartbeatAt, rows, liveness: { alive, heartbeatAgeMs, basis }, cancelSeenAt }];
  }
}

class SqliteIngestWriter implements IngestWriter {
  private readonly session: IngestSession;

  constructor(private readonly journal: Journal) {
    this.session = new IngestSession(journal);
  }

  add(entries: Parameters<IngestSession['add']>[0]): void {
    this.session.add(entries);
  }

  recordManifests(prints: readonly ManifestPrint[]): void {
    this.journal.db.prepare('DELETE FROM manifests').run();
    const upsert = this.journal.db.prepare(`INSERT INTO manifests (path, bytes, sha256, rows, ingested_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, rows = excluded.rows, ingested_at = excluded.ingested_at`);
    for (const print of prints) upsert.run(print.path, print.bytes, print.sha256, print.rows, this.journal.now());
  }

  /** Each row was judged as add() took it. */
  async settle(): Promise<IngestSummary> {
    return this.session.progress;
  }

  async orphanUnread(withheld?: readonly string[]): Promise<void> {
    this.session.orphanUnread(withheld);
  }

  async commit() {
    return this.session.commit();
  }

  async rollback() {
    return this.session.rollback();
  }

  get progress() {
    return this.session.progress;
  }

  /** Not known without reading the rows. */
  committedTotals(): undefined {
    return undefined;
  }
}
