// Ingesting manifest rows: new rows are inserted, identical rows skipped, changed rows refused.
import type Database from 'better-sqlite3';
import type { Spend } from '../change.js';
import {
  ingestConflict,
  judgeAgainstPrior,
  replaceableSql,
  replacementEvent,
  type IngestSummary,
} from '../ingest-rules.js';
import { EventLog, hasEventLog } from './event-log.js';
import type { IngestEntry, JudgedPrior } from '../ingest-rules.js';
import { hasNarrowKeys, NarrowKeys, priorQuery } from './narrow-keys.js';
import { IngestListing, withholdRows } from './orphans.js';
import { hasItemSums, IngestSums } from './item-sums.js';

/** The journal an ingest pass writes: its connection, its clock, and its spend (read once, before the pass). */
export interface IngestTarget {
  readonly db: Database.Database;
  now(): number;
  currentSpend(): Spend;
}

/**
 * One ingest pass held in a single SQLite transaction across async manifest reads, so a refused
 * manifest (invalid rows, conflicts) leaves the journal exactly as it was.
 */
export class IngestSession {
  private readonly summary: IngestSummary = { inserted: 0, unchanged: 0, replaced: 0, conflicts: [] };
  private open = true;
  private readonly insert;
  private readonly existing;
  private readonly replace;
  private readonly insertRequest;
  /** Which rows held before this ingest it read: the others are orphaned at its end. */
  private readonly listing: IngestListing;
  /** The inserted rows' part of the job's summary, written before the commit (undefined: a journal without one). */
  private readonly sums: IngestSums | undefined;

  /** Where a replacement's event goes (undefined: a journal without the narrow log). */
  private readonly events: EventLog | undefined;

  /** Where the hash and the path go on a journal that keeps them narrow (undefined: inline). */
  private readonly narrow: NarrowKeys | undefined;

  constructor(private readonly journal: IngestTarget) {
    const db = journal.db;
    this.narrow = hasNarrowKeys(db) ? new NarrowKeys(db) : undefined;
    this.events = hasEventLog(db) ? new EventLog(db) : undefined;
    const keys = this.narrow ? 'content_hash, content_key, source_file, source_ref' : 'content_hash, source_file';
    const marks = this.narrow ? '?, ?, ?, ?' : '?, ?';
    this.insert = db.prepare(`INSERT INTO items (id, kind, model, request, ${keys}, source_line, state,
      resolution, has_reference_video, estimate_usd, last_error, updated_at, meta)
      VALUES (?, ?, ?, ?, ${marks}, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO NOTHING`);
    // The request is stored out of line (wide-values.ts); a replaced row gets it inline again.
    this.insertRequest = db.prepare('INSERT INTO item_requests (seq, request) VALUES (?, ?)');
    this.existing = db.prepare(priorQuery(db, true));
    // The same values as the insert, in the same order, with the id moved to the WHERE clause.
    const sets = this.narrow
      ? 'content_hash = ?, content_key = ?, source_file = ?, source_ref = ?'
      : 'content_hash = ?, source_file = ?';
    this.replace = db.prepare(`UPDATE items SET kind = ?, model = ?, request = ?, ${sets},
      source_line = ?, state = ?, resolution = ?, has_reference_video = ?,
      estimate_usd = ?, last_error = ?, updated_at = ?, meta = ? WHERE id = ? AND ${replaceableSql('items')}`);
    // Rows come in with nothing reserved or spent (a row they replace had none either), so the
    // spend read now still holds afterwards: a first ingest of 1M rows is not followed by a scan of
    // every row to learn that it is zero (~0.12 s).
    journal.currentSpend();
    this.sums = hasItemSums(db) ? new IngestSums() : undefined;
    db.exec('BEGIN IMMEDIATE');
    this.listing = IngestListing.begin(db);
  }

  add(entries: readonly IngestEntry[]): void {
    if (!this.open) throw new Error('ingest session is closed');
    const now = this.journal.now();
    for (const entry of entries) {
      const requestText = entry.requestJson ?? (entry.request === null ? null : JSON.stringify(entry.request));
      const errorText = entry.lastError ? JSON.stringify(entry.lastError) : null;
      const keys = this.narrow
        ? this.narrow.values(entry.contentHash, entry.sourceFile)
        : [entry.contentHash, entry.sourceFile];
      const values = [
        entry.kind,
        entry.model,
        null,
        ...keys,
        entry.sourceLine,
        entry.state,
        entry.resolution ?? null,
        entry.hasReferenceVideo ? 1 : 0,
        entry.estimateUsd ?? 0,
        errorText,
        now,
        entry.metaJson ?? null,
      ];
      const inserted = this.insert.run(entry.id, ...values);
      if (inserted.changes === 1) {
        if (requestText !== null) this.insertRequest.run(inserted.lastInsertRowid, requestText);
        this.summary.inserted++;
        this.sums?.add({
          state: entry.state,
          kind: entry.kind,
          model: entry.model,
          resolution: entry.resolution ?? null,
          lastError: entry.lastError,
          estimateUsd: entry.estimateUsd ?? 0,
        });
        continue;
      }
      const prior = this.existing.get(entry.id) as JudgedPrior & {
        source_file: string;
        source_line: number;
        seq: number;
      };
      this.listing.read(prior.seq);
      const judgement = judgeAgainstPrior(prior, entry.contentHash);
      if (judgement === 'unchanged') {
        this.summary.unchanged++;
      } else if (judgement === 'replace') {
        values[2] = requestText;
        this.replace.run(...values, entry.id);
        this.summary.replaced++;
        const event = replacementEvent(entry.id, prior, entry.state);
        if (event) this.events?.append(event.itemId, now, event.event, event.from, event.to, event.detail);
      } else {
        this.summary.conflicts.push(
          ingestConflict({ id: entry.id, file: entry.sourceFile, line: entry.sourceLine }, prior),
        );
      }
    }
  }

  /** Every row held before that this ingest did not read is orphaned: one statement, before the commit. */
  orphanUnread(withheld: readonly string[] = []): void {
    if (!this.open) throw new Error('ingest session is closed');
    this.listing.orphanUnread();
    withholdRows(this.journal.db, withheld);
  }

  commit(): IngestSummary {
    if (this.open) this.sums?.write(this.journal.db);
    this.finish('COMMIT');
    return this.summary;
  }

  rollback(): IngestSummary {
    this.finish('ROLLBACK');
    return this.summary;
  }

  get progress(): IngestSummary {
    return this.summary;
  }

  private finish(sql: 'COMMIT' | 'ROLLBACK'): void {
    if (!this.open) return;
    this.open = false;
    this.journal.db.exec(sql);
  }
}
