// Versioned migrations of the journal schema. Append new steps; never edit a shipped one.
import type Database from 'better-sqlite3';

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE job (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    manifest TEXT NOT NULL,
    options TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE runner_lock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    token TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
  );
  CREATE TABLE items (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    model TEXT,
    request TEXT,
    content_hash TEXT NOT NULL,
    source_file TEXT NOT NULL,
    source_line INTEGER NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    auto_resubmits INTEGER NOT NULL DEFAULT 0,
    task_id TEXT,
    resolution TEXT,
    has_reference_video INTEGER NOT NULL DEFAULT 0,
    estimate_usd REAL NOT NULL DEFAULT 0,
    reserved_usd REAL NOT NULL DEFAULT 0,
    price_snapshot TEXT,
    actual_usd REAL,
    total_tokens INTEGER,
    final_resolution TEXT,
    gateway_charge_usd REAL,
    result_url TEXT,
    response TEXT,
    response_status INTEGER,
    request_id TEXT,
    output_path TEXT,
    sha256 TEXT,
    bytes INTEGER,
    last_error TEXT,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX items_by_state ON items (state, seq);
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    event TEXT NOT NULL,
    from_state TEXT,
    to_state TEXT NOT NULL,
    detail TEXT
  );
  CREATE INDEX events_by_item ON events (item_id, seq);
  `,
  `
  CREATE TABLE manifests (
    path TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    rows INTEGER NOT NULL,
    ingested_at INTEGER NOT NULL
  );
  `,
  // The per-item event index cost a random B-tree insert on every transition of a hot run; reading one
  // item's history (rare: an operator's question) scans the log instead.
  `
  DROP INDEX events_by_item;
  `,
  // Money promises: the job keeps its budget across runs (backfilled from the options the last run saved);
  // an answer without a usable count is booked at its bound and marked unmetered.
  `
  ALTER TABLE job ADD COLUMN budget_usd REAL;
  UPDATE job SET budget_usd = json_extract(options, '$.budget') WHERE typeof(json_extract(options, '$.budget')) IN ('integer', 'real');
  ALTER TABLE items ADD COLUMN unmetered INTEGER NOT NULL DEFAULT 0;
  `,
  // How each run ended (exit code, why it stopped), written at its start and its end: `status` shows the
  // last one; a row never ended is a run that was killed.
  `
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    exit_code INTEGER,
    stop_reason TEXT,
    message TEXT
  );
  `,
  // The lock's runner identified beyond its pid (reused after it exits): boot id and process start time.
  `
  ALTER TABLE runner_lock ADD COLUMN process_start TEXT;
  `,
  // Fewer bytes per transition (issue 11): a transition rewrites the whole page of its row, so the wide
  // values leave the row (wide-values.ts): the request and the response are stored once in item_requests
  // and item_answers, a price snapshot or output path once per distinct text in item_texts. Rows written
  // before keep their inline values.
  `
  CREATE TABLE item_requests (seq INTEGER PRIMARY KEY, request TEXT NOT NULL);
  CREATE TABLE item_answers (seq INTEGER PRIMARY KEY, response TEXT NOT NULL);
  CREATE TABLE item_texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
  ALTER TABLE items ADD COLUMN price_ref INTEGER;
  ALTER TABLE items ADD COLUMN output_ref INTEGER;
  CREATE TRIGGER items_inline_request AFTER UPDATE OF request ON items
    BEGIN DELETE FROM item_requests WHERE seq = NEW.seq; END;
  CREATE TRIGGER items_inline_response AFTER UPDATE OF response ON items
    BEGIN DELETE FROM item_answers WHERE seq = NEW.seq; END;
  CREATE TRIGGER items_inline_price AFTER UPDATE OF price_snapshot ON items WHEN NEW.price_ref IS NOT NULL
    BEGIN UPDATE items SET price_ref = NULL WHERE seq = NEW.seq; END;
  CREATE TRIGGER items_inline_output AFTER UPDATE OF output_path ON items WHEN NEW.output_ref IS NOT NULL
    BEGIN UPDATE items SET output_ref = NULL WHERE seq = NEW.seq; END;
  CREATE TRIGGER items_deleted_answer AFTER DELETE ON items
    BEGIN DELETE FROM item_requests WHERE seq = OLD.seq; DELETE FROM item_answers WHERE seq = OLD.seq; END;
  `,
  // `gbatch cancel` (issue 13): the job's cancellation, which a live runner reads and acknowledges on its
  // lock row (the command waits for that); the journal refuses a `submit` while it stands.
  `
  ALTER TABLE job ADD COLUMN cancelled_at INTEGER;
  ALTER TABLE job ADD COLUMN cancel_reason TEXT;
  ALTER TABLE runner_lock ADD COLUMN cancel_seen_at INTEGER;
  `,
  // A narrower item row (issue 11, narrow-keys.ts): new rows keep their sha256 content hash as 32 bytes
  // and their manifest path once in item_texts; rows written before keep theirs inline.
  `
  CREATE TABLE IF NOT EXISTS item_texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
  ALTER TABLE items ADD COLUMN content_key BLOB;
  ALTER TABLE items ADD COLUMN source_ref INTEGER;
  `,
  // A narrower event log (issue 11, event-log.ts): a code for the event, its states and a short detail.
  // The events written before move to events_inline, untouched; the view `events` reads both. The first
  // row of event_log (kind 0, no such code, so the view skips it) holds the last old seq: new events
  // follow the old ones.
  `
  ALTER TABLE events RENAME TO events_inline;
  CREATE TABLE event_kinds (code INTEGER PRIMARY KEY, event TEXT NOT NULL, from_state TEXT, to_state TEXT NOT NULL, detail TEXT);
  CREATE TABLE event_log (seq INTEGER PRIMARY KEY, item_id TEXT NOT NULL, at INTEGER NOT NULL, kind INTEGER NOT NULL, detail TEXT);
  INSERT INTO event_log (seq, item_id, at, kind) SELECT MAX(seq), '', 0, 0 FROM events_inline HAVING MAX(seq) IS NOT NULL;
  CREATE VIEW events AS
    SELECT seq, item_id, at, event, from_state, to_state, detail FROM events_inline
    UNION ALL
    SELECT l.seq, l.item_id, l.at, k.event, k.from_state, k.to_state, COALESCE(l.detail, k.detail)
    FROM event_log l JOIN event_kinds k ON k.code = l.kind;
  `,
  // What the job file said of the budget at the last run: its value applies again only when
  // the file changes it, never over a later explicit --budget.
  `
  ALTER TABLE job ADD COLUMN job_file_budget TEXT;
  `,
  // Rows the manifests of the job's last run no longer list (src/core/orphans.ts): 0 listed,
  // 1 orphaned (not sent), 2 adopted by the operator's `retry <id>`. The manifests' records go: the first
  // run after this step reads its manifests whole once, so that every row's listing is decided.
  `
  ALTER TABLE items ADD COLUMN orphan INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX items_orphaned ON items (state, seq) WHERE orphan = 1;
  DELETE FROM manifests;
  `,
  // A row's metadata (CSV metadata columns, a JSONL line's `meta`): kept for results.jsonl, never sent.
  `
  ALTER TABLE items ADD COLUMN meta TEXT;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to SCHEMA_VERSION; refuses a journal written by a newer gbatch. The version is
 * read again under the write lock (BEGIN IMMEDIATE): two processes creating the same journal at once
 * would otherwise both see version 0 and both create the tables.
 */
export function migrate(db: Database.Database, file: string): void {
  const check = (version: number): void => {
    if (version > SCHEMA_VERSION) {
      throw new Error(`${file}: journal schema version ${version} is newer than this gbatch supports (${SCHEMA_VERSION}); upgrade gbatch`);
    }
  };
  const seen = db.pragma('user_version', { simple: true }) as number;
  check(seen);
  if (seen === SCHEMA_VERSION) return;
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    check(current);
    for (let version = current; version < SCHEMA_VERSION; version++) db.exec(MIGRATIONS[version]!);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
