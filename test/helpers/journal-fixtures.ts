// Shared fixtures for journal-backed tests: real SQLite files in a temp dir, rows seeded the way the
// runner writes them (IngestSession, apply) or, for crash scenarios, straight through SQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { snapshotPrice } from '../../src/core/settlement.js';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import type { ItemKind, ItemState } from '../../src/core/states.js';
import { type IngestEntry, type IngestSummary, type Item } from '../../src/journal/index.js';
import { type SyncJournal, openSyncJournal, rawDb, IngestSession, type SyncJournalOptions } from './journal-raw.js';

/** A fresh temp directory per test, removed afterwards, with every journal opened in it closed first. */
export function useTempDir(prefix = 'gbatch-test-'): {
  dir(): string;
  open(name?: string, options?: SyncJournalOptions): SyncJournal;
} {
  let current: string | undefined;
  let opened: SyncJournal[] = [];
  beforeEach(() => {
    current = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    for (const journal of opened) journal.close();
    opened = [];
    if (current) rmSync(current, { recursive: true, force: true });
    current = undefined;
  });
  const dir = (): string => {
    if (!current) throw new Error('useTempDir: no test is running');
    return current;
  };
  return {
    dir,
    open(name = 'job.db', options: SyncJournalOptions = {}): SyncJournal {
      const journal = openSyncJournal(join(dir(), name), options);
      opened.push(journal);
      return journal;
    },
  };
}

/** A clock that moves only when a test says so. */

let line = 0;

/** An ingest row as the manifest reader would hand it over; `kind` picks a plausible request. */
export function entry(id: string, overrides: Partial<IngestEntry> = {}): IngestEntry {
  const kind = (overrides.kind ?? 'chat') as ItemKind;
  const model =
    overrides.model ?? (kind === 'video' ? 'video-fast' : kind === 'responses' ? 'chat-large' : 'chat-small');
  const request =
    overrides.request ??
    (kind === 'video'
      ? { model, prompt: `a clip for ${id}`, resolution: '720p', duration: 5 }
      : kind === 'responses'
        ? { model, input: `question ${id}` }
        : { model, messages: [{ role: 'user', content: `hello ${id}` }] });
  return {
    id,
    kind,
    model,
    request,
    contentHash: `hash-of-${id}`,
    sourceFile: 'manifest.jsonl',
    sourceLine: ++line,
    state: 'pending',
    resolution: kind === 'video' ? '720p' : null,
    hasReferenceVideo: false,
    estimateUsd: kind === 'video' ? 0.5 : 0.01,
    lastError: null,
    ...overrides,
  };
}

export function ingest(journal: SyncJournal, entries: readonly IngestEntry[]): IngestSummary {
  const session = new IngestSession(journal);
  session.add(entries);
  return session.commit();
}

export type RawRow = Record<string, unknown>;

export function itemRows(journal: SyncJournal): RawRow[] {
  return rawDb(journal).prepare('SELECT * FROM items ORDER BY seq').all() as RawRow[];
}

export function eventRows(journal: SyncJournal): RawRow[] {
  return rawDb(journal).prepare('SELECT * FROM events ORDER BY seq').all() as RawRow[];
}

/** Puts an item in a state directly, as a runner killed mid-flight would have left it. */
export function forceState(
  journal: SyncJournal,
  id: string,
  state: ItemState,
  columns: Record<string, unknown> = {},
): void {
  const names = Object.keys(columns);
  const sets = ['state = ?', ...names.map((n) => `${n} = ?`)].join(', ');
  const result = rawDb(journal)
    .prepare(`UPDATE items SET ${sets} WHERE id = ?`)
    .run(state, ...names.map((n) => columns[n]), id);
  if (result.changes !== 1) throw new Error(`forceState: no item '${id}'`);
}

/** The `submit` change the submitter writes before a request leaves. */
export function submitChange(item: Pick<Item, 'id' | 'kind' | 'model' | 'estimateUsd'>, attempt = 1) {
  return {
    id: item.id,
    event: 'submit' as const,
    patch: {
      attempts: attempt,
      reservedUsd: item.estimateUsd,
      priceSnapshot: snapshotPrice(item.kind, item.model, BUILTIN_PRICING),
    },
    detail: { attempt },
  };
}

/** A complete Item value for pure functions that never touch a journal. */
export function makeItem(overrides: Partial<Item> = {}): Item {
  const kind = overrides.kind ?? 'chat';
  const model = overrides.model ?? (kind === 'video' ? 'video-fast' : 'chat-small');
  return {
    seq: 1,
    id: 'row-1',
    kind,
    model,
    request: {},
    contentHash: 'hash',
    sourceFile: 'manifest.jsonl',
    sourceLine: 1,
    state: 'submitting',
    attempts: 1,
    autoResubmits: 0,
    autoRetries: 0,
    downloadFailures: 0,
    taskId: null,
    resolution: kind === 'video' ? '720p' : null,
    hasReferenceVideo: false,
    estimateUsd: 0.02,
    reservedUsd: 0.02,
    carriedUsd: 0,
    priceSnapshot: snapshotPrice(kind, model, BUILTIN_PRICING),
    actualUsd: null,
    totalTokens: null,
    finalResolution: null,
    gatewayChargeUsd: null,
    resultUrl: null,
    response: null,
    responseStatus: null,
    requestId: null,
    outputPath: null,
    sha256: null,
    bytes: null,
    lastError: null,
    unmetered: false,
    updatedAt: 0,
    ...overrides,
  };
}

/** Takes a journal back to schema 12: before the items' `meta` column (a row's metadata) and the steps after it. */
export function withoutItemMeta(db: import('better-sqlite3').Database): void {
  db.exec('ALTER TABLE items DROP COLUMN meta');
  withoutServeCatalog(db);
}

/** Takes a journal back before schema 14: without `gbatch serve`'s catalog tables, and the summaries after it. */
export function withoutServeCatalog(db: import('better-sqlite3').Database): void {
  withoutItemSums(db);
  db.exec('DROP TABLE serve_files; DROP TABLE serve_batches;');
}

/** Takes a journal back before schema 15: without its summaries (item sums, row times, video durations, indexes). */
export function withoutItemSums(db: import('better-sqlite3').Database): void {
  withoutAttemptHistory(db);
  db.exec(`DROP TRIGGER item_sums_on_update; DROP TRIGGER item_sums_on_delete; DROP TRIGGER video_duration_on_success;
    DROP INDEX items_by_model; DROP INDEX items_by_error_code; DROP TABLE item_sums; DROP TABLE video_durations;
    ALTER TABLE items DROP COLUMN submitted_at; ALTER TABLE items DROP COLUMN accepted_at;
    ALTER TABLE items DROP COLUMN succeeded_at; ALTER TABLE items DROP COLUMN finished_at;`);
}

/**
 * Takes a journal back before schema 16: without what a row keeps of its attempts (its carried booking, its
 * automatic retries, its failed download rounds).
 */
export function withoutAttemptHistory(db: import('better-sqlite3').Database): void {
  db.exec(`ALTER TABLE items DROP COLUMN carried_usd; ALTER TABLE items DROP COLUMN auto_retries;
    ALTER TABLE items DROP COLUMN download_failures;`);
}

/**
 * Takes a journal back to schema 9: its event log to one inline `events` table (event-log.ts), and without the
 * job file's budget record that came after it.
 */
export function inlineEventLog(db: import('better-sqlite3').Database): void {
  db.exec(`ALTER TABLE job DROP COLUMN job_file_budget;
    DROP VIEW events;
    ALTER TABLE events_inline RENAME TO events;
    INSERT INTO events (seq, item_id, at, event, from_state, to_state, detail)
      SELECT l.seq, l.item_id, l.at, k.event, k.from_state, k.to_state, COALESCE(l.detail, k.detail) FROM event_log l JOIN event_kinds k ON k.code = l.kind;
    DROP TABLE event_log; DROP TABLE event_kinds;`);
}
