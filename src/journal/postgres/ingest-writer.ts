// One ingest pass in one transaction: rows stream in with COPY to a staging table, a chunk at a time,
// and each chunk is merged with one INSERT ... SELECT plus the judgement of ids the job already holds
// (judgeAgainstPrior, row by row in manifest order, as the SQLite adapter judges them). Memory holds one
// chunk's judgements at most, never the manifest. The insert has no ON CONFLICT: under the job's ingest
// lock no other insert races it, the speculative insert would cost a fifth of the merge, and a row that
// did collide fails the whole pass.
//
// A job that held no rows when the pass took its lock (a first ingest) has nothing to judge a row
// against but the pass's own earlier rows: a row whose id the pass has not seen is new, and goes
// straight into items with COPY, the server inserting while the manifest is still being read. The
// pass remembers its ids (IdRegistry's fingerprints); a row under one it has seen (a repeated id, or the rare id
// sharing a fingerprint) and every row after it go the judged way until that chunk is merged. Either
// way it is the one transaction: a pass cut short leaves nothing, and the next one starts over.
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Writable } from 'node:stream';
import { LISTING_CODE } from '../../core/orphans.js';
import { ITEM_STATES, type ItemState } from '../../core/states.js';
import { IdRegistry } from '../../core/id-registry.js';
import { replaceableSql, type IngestEntry, type IngestSummary } from '../ingest-rules.js';
import type { IngestWriter, JobTotals, ManifestPrint } from '../store.js';
import { takeIngestLock, type IngestLockWait } from './ingest-lock.js';
import { copyField } from './copy-text.js';
import { checkout } from './pool.js';
import { logEvents } from './transitions.js';
import { judgeStaged, type StagedRow } from './ingest-judgement.js';

/** Rows staged before they are merged: large enough to amortise the merge, small enough to judge in memory. */
const CHUNK_ROWS = 50_000;

/** The columns of items that queries filter or join on: the ones whose statistics steer plans. */
const ANALYZED_COLUMNS = 'job_id, seq, id, state, kind, owner, claimed_by';

const ITEM_FIELDS = `id, kind, model, request, content_hash, source_file, source_line, state, resolution,
  has_reference_video, estimate_usd, last_error, updated_at, meta`;

/** Where rows are copied to: the job's items (a row known new), or the staging table (a row to judge). */
type CopyTarget = 'items' | 'stage';

/**
 * A COPY in progress. `broken` rejects once the COPY or its session fails: the stream says so once, in
 * an 'error' no later step may still be listening for, and a write it holds for a session that has ended
 * never completes (no 'drain', no 'finish'), so every wait on the stream also waits on this.
 */
interface OpenCopy {
  stream: Writable;
  into: CopyTarget;
  rows: number;
  broken: Promise<never>;
  detach(): void;
}

export class PgIngestWriter implements IngestWriter {
  private readonly summary: IngestSummary = { inserted: 0, unchanged: 0, replaced: 0, conflicts: [] };
  private readonly manifests: ManifestPrint[] = [];
  /** Whether recordManifests() was called: the job's records are then replaced by this pass's. */
  private manifestsRecorded = false;
  private copy: OpenCopy | undefined;
  private staged = 0;
  private ord = 0;
  /** Ids this pass has written, when the job held no rows before it (else undefined: every row is judged). */
  private readonly ids: IdRegistry | undefined;
  /** A row under an id the pass may have seen came in: rows are staged and judged until the next merge. */
  private judging = false;
  private lastFile: string | undefined;
  private lastFileText = '';
  /** Rows copied straight into items, by state. */
  private readonly copiedStates = new Map<string, number>();
  /** The work add() started and the caller may not have waited for; the next step waits for it. */
  private tail: Promise<void> | undefined;
  private failure: unknown;
  private open = true;

  private constructor(
    private readonly client: pg.PoolClient,
    private readonly jobId: number,
    private readonly now: () => number,
    firstIngest: boolean,
  ) {
    if (firstIngest) this.ids = new IdRegistry();
  }

  /**
   * Opens the pass: a transaction on a client of its own, the job's ingest lock (a second runner
   * ingesting the same job waits here, then finds the rows unchanged), and an empty staging table.
   */
  static async begin(pool: pg.Pool, jobId: number, now: () => number, wait: IngestLockWait): Promise<PgIngestWriter> {
    const client = await checkout(pool);
    try {
      await client.query('BEGIN');
      await takeIngestLock(client, jobId, wait);
      // A chunk's rows are sorted into manifest order for the insert: in memory, not in temp files. Each
      // chunk meets the job's rows by index, one probe a row: a hash or merge join would read every row
      // of the job for every chunk (a million-row job: 20 full reads).
      await client.query(
        `SET LOCAL work_mem = '64MB'; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off`,
      );
      await client.query(`CREATE TEMP TABLE ingest_stage (ord bigint NOT NULL, id text COLLATE "C" NOT NULL, kind text NOT NULL, model text,
        request text, content_hash text NOT NULL, source_file text NOT NULL, source_line integer NOT NULL, state text NOT NULL,
        resolution text, has_reference_video smallint NOT NULL, estimate_usd double precision NOT NULL, last_error text,
        updated_at bigint NOT NULL, meta text) ON COMMIT DROP`);
      // Read under the lock: every insert into items is an ingest's, and none can commit before this pass does.
      const { rows } = await client.query<{ held: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM items WHERE job_id = $1) AS held',
        [jobId],
      );
      // The ids a pass on a job holding rows reads (every row of it is staged): the rest are orphaned at its end.
      // No index: appended to per chunk, it is read once, whole, by a hash join (orphanUnread()).
      if (rows[0]!.held)
        await client.query('CREATE TEMP TABLE ingest_read (id text COLLATE "C" NOT NULL) ON COMMIT DROP');
      return new PgIngestWriter(client, jobId, now, !rows[0]!.held);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
      throw err;
    }
  }

  /**
   * The job's rows by state and its spend as this pass's commit leaves them, when known without reading
   * them: a first ingest whose every row went straight in (a new row reserves and spends nothing).
   */
  committedTotals(): JobTotals | undefined {
    if (this.open || this.ids === undefined || this.ord > 0) return undefined;
    const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, this.copiedStates.get(s) ?? 0])) as Record<
      ItemState,
      number
    >;
    return { counts, spend: { reservedUsd: 0, actualUsd: 0 } };
  }

  get progress(): IngestSummary {
    return this.summary;
  }

  add(entries: readonly IngestEntry[]): void | Promise<void> {
    this.assertOpen();
    if (entries.length === 0) return this.tail;
    return this.chain(() => this.stage(entries));
  }

  recordManifests(prints: readonly ManifestPrint[]): void {
    this.assertOpen();
    // Written at commit, in the pass's transaction: the client may be busy with a COPY now.
    this.manifests.push(...prints);
    this.manifestsRecorded = true;
  }

  /** Merges every row added so far and returns the summary: what commit() would report. */
  async settle(): Promise<IngestSummary> {
    this.assertOpen();
    await this.chain(() => this.merge());
    return this.summary;
  }

  /**
   * One statement (src/core/orphans.ts): a row read but not listed is listed again, a listed row not read
   * is orphaned, an adopted one not read stays adopted. A first ingest read every row the job holds.
   */
  async orphanUnread(withheld: readonly string[] = []): Promise<void> {
    this.assertOpen();
    await this.chain(() => this.merge());
    if (this.ids === undefined) await this.orphanUnreadRows();
    // Rows whose manifest row changed and was skipped (--skip-changed): orphaned, so no run sends their old content.
    if (withheld.length > 0) {
      const { orphaned } = LISTING_CODE;
      await this.client.query(
        `UPDATE items SET orphan = ${orphaned} WHERE job_id = $1 AND id = ANY($2::text[]) AND orphan <> ${orphaned}`,
        [this.jobId, withheld],
      );
    }
  }

  /**
   * A pass on a job that held rows: those it did not read are orphaned, orphaned or adopted ones it read listed again.
   */
  private async orphanUnreadRows(): Promise<void> {
    const { listed, orphaned } = LISTING_CODE;
    // Every row of the job meets the pass's ids once: a hash join, not a probe of an index per row
    // (100,000 rows: 0.5 s against 2.5 s with a keyed table, the keys' upkeep included).
    await this.client.query(`SET LOCAL enable_hashjoin = on; SET LOCAL enable_mergejoin = on`);
    await this.client.query(
      `UPDATE items i SET orphan = CASE WHEN i.orphan = ${listed} THEN ${orphaned} ELSE ${listed} END
      FROM (SELECT j.seq FROM items j LEFT JOIN (SELECT DISTINCT id FROM ingest_read) r ON r.id = j.id
        WHERE j.job_id = $1 AND CASE WHEN r.id IS NULL THEN j.orphan = ${listed} ELSE j.orphan <> ${listed} END) changed
      WHERE i.job_id = $1 AND i.seq = changed.seq`,
      [this.jobId],
    );
  }

  async commit(): Promise<IngestSummary> {
    if (!this.open) return this.summary;
    try {
      await this.chain(() => this.merge());
      await this.writeManifests();
      await this.client.query('COMMIT');
    } catch (err) {
      await this.end(err);
      throw err;
    }
    this.open = false;
    const client = this.client;
    if (this.summary.inserted + this.summary.replaced === 0) {
      client.release();
      return this.summary;
    }
    // Fresh statistics soon: without them a plan that joins the job's rows may read every one of them (a
    // hash join) instead of probing the id index, 9x slower on 20,000 rows (BENCHMARKS.md); autovacuum's
    // own analyze comes a minute later at best. Only the columns queries filter on (the bodies' are the
    // costly ones), on a sample of 3,000 rows (statistics target 10: plenty for these plans, 10x cheaper
    // on a large job than the default 30,000), and in the background: the run's first requests need no
    // statistics (a group commit probes rows by id) and do not wait for it; the pool's end does. Only a
    // speed-up: a failure is not the ingest's (a client that failed is not pooled again).
    void client
      .query(`BEGIN; SET LOCAL default_statistics_target = 10; ANALYZE items (${ANALYZED_COLUMNS}); COMMIT`)
      .then(
        () => client.release(),
        (err: Error) => client.release(err),
      );
    return this.summary;
  }

  async rollback(): Promise<IngestSummary> {
    if (!this.open) return this.summary;
    let failed: unknown;
    try {
      // Judge what was added (the counts match SQLite's), then undo it all.
      if (this.failure === undefined) await this.chain(() => this.merge());
    } catch (err) {
      failed = err;
    }
    await this.end(failed);
    return this.summary;
  }

  private assertOpen(): void {
    if (!this.open) throw new Error('ingest session is closed');
    if (this.failure !== undefined) throw this.failure;
  }

  /** Runs `step` after whatever add() left running; returns a promise only when there is something to wait for. */
  private chain(step: () => void | Promise<void>): void | Promise<void> {
    const run = (): void | Promise<void> => {
      if (this.failure !== undefined) throw this.failure;
      return step();
    };
    const result = this.tail ? this.tail.then(run) : run();
    if (result === undefined) return undefined;
    const tracked: Promise<void> = result.then(
      () => {
        if (this.tail === tracked) this.tail = undefined;
      },
      (err: unknown) => {
        this.failure ??= err;
        if (this.tail === tracked) this.tail = undefined;
        throw err;
      },
    );
    // The reader awaits this only at its next pause, and it may fail before (the session ended meanwhile):
    // the failure is kept above for the next step, so its rejection is never an unhandled one.
    tracked.catch(() => {});
    this.tail = tracked;
    return tracked;
  }

  private stage(entries: readonly IngestEntry[]): void | Promise<void> {
    const at = this.now();
    let copied = '';
    let copiedRows = 0;
    let staged = '';
    let stagedRows = 0;
    for (const entry of entries) {
      const fields = this.rowText(entry, at);
      // Every id goes into the fingerprints, the judged ones too: a later row under it is judged.
      const isNew =
        this.ids !== undefined && this.ids.register(entry.id, entry.sourceLine) === undefined && !this.judging;
      if (isNew) {
        copied += `${this.jobId}\t${fields}`;
        copiedRows++;
        this.copiedStates.set(entry.state, (this.copiedStates.get(entry.state) ?? 0) + 1);
      } else {
        if (this.ids !== undefined) this.judging = true;
        staged += `${++this.ord}\t${fields}`;
        stagedRows++;
      }
    }
    // Rows keep their order: those copied straight in all come before the first one staged.
    const first = copiedRows > 0 ? this.write('items', copied, copiedRows) : undefined;
    if (stagedRows === 0) return first;
    const then = (): void | Promise<void> => {
      const written = this.write('stage', staged, stagedRows);
      if (this.staged < CHUNK_ROWS) return written;
      return written ? written.then(() => this.merge()) : this.merge();
    };
    return first ? first.then(then) : then();
  }

  /**
   * A row's COPY text after its first column (ord or job_id), in ITEM_FIELDS order. Written out field by
   * field rather than through an array per row: a million rows' worth of garbage less on this thread.
   */
  private rowText(entry: IngestEntry, at: number): string {
    const requestText = entry.requestJson ?? (entry.request === null ? null : JSON.stringify(entry.request));
    // Every row of a manifest names the same file: escaped once.
    if (entry.sourceFile !== this.lastFile) this.lastFileText = copyField((this.lastFile = entry.sourceFile));
    return `${copyField(entry.id)}\t${copyField(entry.kind)}\t${copyField(entry.model)}\t${copyField(requestText)}\t${copyField(entry.contentHash)}\t${
      this.lastFileText
    }\t${entry.sourceLine}\t${copyField(entry.state)}\t${copyField(entry.resolution)}\t${entry.hasReferenceVideo ? 1 : 0}\t${
      entry.estimateUsd ?? 0
    }\t${entry.lastError ? copyField(JSON.stringify(entry.lastError)) : '\\N'}\t${at}\t${copyField(entry.metaJson)}\n`;
  }

  /** Sends rows to the COPY into `into` (ending the other one first); a promise when the caller should wait. */
  private write(into: CopyTarget, text: string, rows: number): void | Promise<void> {
    if (this.copy && this.copy.into !== into) return this.endCopy().then(() => this.write(into, text, rows));
    const copy = (this.copy ??= this.openCopy(into));
    copy.rows += rows;
    if (into === 'items') this.summary.inserted += rows;
    else this.staged += rows;
    if (copy.stream.write(text)) return undefined;
    return Promise.race([new Promise<void>((resolve) => copy.stream.once('drain', resolve)), copy.broken]);
  }

  private openCopy(into: CopyTarget): OpenCopy {
    const sql =
      into === 'items'
        ? `COPY items (job_id, ${ITEM_FIELDS}) FROM STDIN`
        : `COPY ingest_stage (ord, ${ITEM_FIELDS}) FROM STDIN`;
    const stream = this.client.query(copyFrom(sql)) as Writable & { rowCount: number };
    let fail: (err: Error) => void = () => {};
    const broken = new Promise<never>((_, reject) => {
      fail = reject;
    });
    broken.catch(() => {}); // a COPY that ends well never breaks; one that breaks is awaited below
    // The server may refuse a row while no one waits on the stream: keep the error for the next step.
    const failed = (err: Error): void => {
      this.failure ??= err;
      fail(err);
    };
    // The session ended under the COPY (another runner ended it once this one's lease expired while it
    // was frozen): the client says so even when the stream has nothing left to tell.
    const ended = (): void =>
      failed(new Error('the database session ended during the ingest (its transaction rolled back)'));
    stream.on('error', failed);
    this.client.once('end', ended);
    return { stream, into, rows: 0, broken, detach: () => this.client.off('end', ended) };
  }

  private async endCopy(): Promise<void> {
    const copy = this.copy;
    if (!copy) return;
    this.copy = undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve, reject) => {
          copy.stream.once('error', reject);
          copy.stream.once('finish', () => resolve());
          copy.stream.end();
        }),
        copy.broken,
      ]);
    } finally {
      copy.detach();
    }
    const copied = (copy.stream as Writable & { rowCount: number }).rowCount;
    if (copied !== copy.rows) throw new Error(`ingest: the server took ${copied} rows where ${copy.rows} were sent`);
  }

  /** Moves the staged rows into items: new ids inserted in manifest order, the rest judged. */
  private async merge(): Promise<void> {
    await this.endCopy();
    if (this.staged === 0) return;
    // Once merged, every id the pass has seen is in items or was judged: new ids may go straight in again.
    this.judging = false;
    const client = this.client;
    // Rows under an id the job holds already, and every row of an id staged more than once: these are
    // judged one by one, in order; every other row is simply new.
    const judged = (
      await client.query<StagedRow>(
        `SELECT s.ord, s.id, s.content_hash, s.state, s.source_file, s.source_line,
        i.content_hash AS p_hash, i.state AS p_state, i.source_file AS p_file, i.source_line AS p_line,
        i.orphan AS p_orphan, i.reserved_usd AS p_reserved, i.actual_usd AS p_actual
      FROM ingest_stage s LEFT JOIN items i ON i.job_id = $1 AND i.id = s.id
      WHERE i.id IS NOT NULL OR s.id IN (SELECT id FROM ingest_stage GROUP BY id HAVING count(*) > 1)
      ORDER BY s.ord`,
        [this.jobId],
      )
    ).rows;
    const { expectedNew, later, replacing, replaced } = judgeStaged(judged, this.staged, this.summary);
    // Nothing judged (a first ingest, as a rule): every staged row is new, no need to look again.
    const inserted =
      judged.length === 0
        ? await client.query(
            `INSERT INTO items (job_id, ${ITEM_FIELDS}) SELECT $1, ${ITEM_FIELDS} FROM ingest_stage ORDER BY ord`,
            [this.jobId],
          )
        : await client.query(
            `INSERT INTO items (job_id, ${ITEM_FIELDS})
        SELECT $1, ${ITEM_FIELDS} FROM ingest_stage s
        WHERE NOT (s.ord = ANY($2)) AND NOT EXISTS (SELECT 1 FROM items i WHERE i.job_id = $1 AND i.id = s.id)
        ORDER BY s.ord`,
            [this.jobId, later],
          );
    if (inserted.rowCount !== expectedNew) {
      throw new Error(
        `ingest: ${inserted.rowCount} new rows written where ${expectedNew} were expected (the job changed under the ingest lock)`,
      );
    }
    this.summary.inserted += expectedNew;
    if (replacing.length > 0) {
      await client.query(
        `UPDATE items i SET kind = s.kind, model = s.model, request = s.request, content_hash = s.content_hash,
          source_file = s.source_file, source_line = s.source_line, state = s.state, resolution = s.resolution,
          has_reference_video = s.has_reference_video, estimate_usd = s.estimate_usd, last_error = s.last_error, updated_at = s.updated_at, meta = s.meta,
          finished_at = CASE WHEN i.state = s.state THEN i.finished_at
            WHEN s.state IN ('downloaded', 'failed', 'rejected') THEN COALESCE(i.finished_at, s.updated_at) END
        FROM ingest_stage s WHERE s.ord = ANY($2) AND i.job_id = $1 AND i.id = s.id AND ${replaceableSql('i')}`,
        [this.jobId, replacing],
      );
      await logEvents(client, this.jobId, this.now(), replaced);
    }
    if (this.ids === undefined) await client.query('INSERT INTO ingest_read (id) SELECT id FROM ingest_stage');
    await client.query('TRUNCATE ingest_stage');
    this.staged = 0;
  }

  private async writeManifests(): Promise<void> {
    if (!this.manifestsRecorded) return;
    await this.client.query('DELETE FROM manifests WHERE job_id = $1', [this.jobId]);
    if (this.manifests.length === 0) return;
    const now = this.now();
    const last = new Map(this.manifests.map((p) => [p.path, p]));
    const prints = [...last.values()];
    await this.client.query(
      `INSERT INTO manifests (job_id, path, bytes, sha256, rows, ingested_at)
      SELECT $1, m.path, m.bytes, m.sha256, m.rows, $2 FROM unnest($3::text[], $4::bigint[], $5::text[], $6::bigint[]) AS m(path, bytes, sha256, rows)
      ON CONFLICT (job_id, path) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, rows = excluded.rows, ingested_at = excluded.ingested_at`,
      [
        this.jobId,
        now,
        prints.map((p) => p.path),
        prints.map((p) => p.bytes),
        prints.map((p) => p.sha256),
        prints.map((p) => p.rows),
      ],
    );
  }

  /** Rolls back and returns the client: destroyed when it broke (a failed COPY, a lost connection). */
  private async end(failure?: unknown): Promise<void> {
    if (!this.open) return;
    this.open = false;
    let broken: Error | undefined;
    if (this.copy) {
      await this.endCopy().catch((err: Error) => {
        broken = err;
      });
    }
    if (failure !== undefined || broken !== undefined || this.tail !== undefined) {
      await this.tail?.catch(() => {});
    }
    await this.client.query('ROLLBACK').catch((err: Error) => {
      broken ??= err;
    });
    this.client.release(broken);
  }
}
