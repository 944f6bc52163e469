// Versioned migrations of the PostgreSQL journal schema. Append new steps; never edit a shipped one.
// One database holds many jobs: every table is keyed by the job.
import type pg from 'pg';
import { MIGRATION_LOCK_SQL } from './advisory-locks.js';
import { APPLY_CHANGES_FUNCTION, APPLY_PLAN_FUNCTION } from './apply-changes-function.js';

export const MIGRATIONS: readonly string[] = [
  // Seqs are drawn 1000 at a time per session (an ingest draws one per row; gaps are harmless: only the
  // order counts). Ids and states compare as bytes (COLLATE "C"): their indexes do not pay for the
  // database's collation, and nothing sorts them for a reader. Money is double precision (SQLite's REAL: both adapters round alike); JSON is text, kept exactly as
  // written (results.jsonl splices `response` and `last_error` raw). Items and events carry no foreign
  // key to jobs: a check per row would tax every ingest and transition for a rule the code keeps.
  `
  CREATE TABLE jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE,
    manifest text,
    options text,
    budget_usd double precision,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE TABLE items (
    job_id bigint NOT NULL,
    seq bigint GENERATED ALWAYS AS IDENTITY (CACHE 1000),
    id text COLLATE "C" NOT NULL,
    kind text NOT NULL,
    model text,
    request text,
    content_hash text NOT NULL,
    source_file text NOT NULL,
    source_line integer NOT NULL,
    state text COLLATE "C" NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    auto_resubmits integer NOT NULL DEFAULT 0,
    task_id text,
    resolution text,
    has_reference_video smallint NOT NULL DEFAULT 0,
    estimate_usd double precision NOT NULL DEFAULT 0,
    reserved_usd double precision NOT NULL DEFAULT 0,
    price_snapshot text,
    actual_usd double precision,
    total_tokens bigint,
    final_resolution text,
    gateway_charge_usd double precision,
    result_url text,
    response text,
    response_status integer,
    request_id text,
    output_path text,
    sha256 text,
    bytes bigint,
    last_error text,
    unmetered smallint NOT NULL DEFAULT 0,
    owner uuid,
    updated_at bigint NOT NULL,
    PRIMARY KEY (job_id, seq),
    UNIQUE (job_id, id)
  );
  CREATE INDEX items_by_state ON items (job_id, state, seq);
  CREATE TABLE events (
    job_id bigint NOT NULL,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    item_id text COLLATE "C" NOT NULL,
    at bigint NOT NULL,
    event text NOT NULL,
    from_state text,
    to_state text NOT NULL,
    detail text,
    PRIMARY KEY (job_id, seq)
  );
  CREATE INDEX events_by_item ON events (job_id, item_id, seq);
  CREATE TABLE manifests (
    job_id bigint NOT NULL,
    path text NOT NULL,
    bytes bigint NOT NULL,
    sha256 text NOT NULL,
    rows bigint NOT NULL,
    ingested_at bigint NOT NULL,
    PRIMARY KEY (job_id, path)
  );
  CREATE TABLE runs (
    job_id bigint NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    pid integer NOT NULL,
    host text NOT NULL,
    started_at bigint NOT NULL,
    ended_at bigint,
    exit_code integer,
    stop_reason text,
    message text,
    PRIMARY KEY (job_id, id)
  );
  CREATE TABLE runners (
    job_id bigint NOT NULL,
    runner_id uuid NOT NULL,
    pid integer NOT NULL,
    host text NOT NULL,
    process_start text,
    started_at bigint NOT NULL,
    heartbeat_at bigint NOT NULL,
    lease_until bigint NOT NULL,
    PRIMARY KEY (job_id, runner_id)
  );
  `,
  // Many runners on one job. A pending row is claimed (claimed_by) by the runner about to send it, so
  // runners take disjoint rows; a row in flight is held (owner) by the runner that sent it. The job keeps
  // running totals of its money, moved in the same transaction as the rows: the budget is checked against
  // them, whoever reserves. A 402 stops the job's submissions on every runner (stopped_at). Runners that
  // are gone are marked swept once their rows were taken over. The account's shared pace and pause live
  // under a hash of its gateway and key (never the key).
  `
  ALTER TABLE items ADD COLUMN claimed_by uuid;
  CREATE INDEX items_by_owner ON items (job_id, owner) WHERE owner IS NOT NULL;
  ALTER TABLE jobs ADD COLUMN reserved_usd double precision NOT NULL DEFAULT 0;
  ALTER TABLE jobs ADD COLUMN actual_usd double precision NOT NULL DEFAULT 0;
  ALTER TABLE jobs ADD COLUMN stop_reason text;
  ALTER TABLE jobs ADD COLUMN stopped_at bigint;
  UPDATE jobs j SET reserved_usd = s.reserved, actual_usd = s.actual
    FROM (SELECT job_id, COALESCE(SUM(reserved_usd), 0) AS reserved, COALESCE(SUM(actual_usd), 0) AS actual FROM items GROUP BY job_id) s
    WHERE s.job_id = j.id;
  ALTER TABLE runners ADD COLUMN swept_at bigint;
  CREATE TABLE accounts (
    account text PRIMARY KEY,
    next_send_at bigint NOT NULL DEFAULT 0,
    paused_until bigint NOT NULL DEFAULT 0
  );
  `,
  // `gbatch cancel` (issue 13): the job's cancellation (on the database's clock), which every live runner
  // reads and acknowledges on its runner row (the command waits for that); a `submit` is refused while it stands.
  `
  ALTER TABLE jobs ADD COLUMN cancelled_at bigint;
  ALTER TABLE jobs ADD COLUMN cancel_reason text;
  ALTER TABLE runners ADD COLUMN cancel_seen_at bigint;
  `,
  // Fewer bytes per transition (BENCHMARKS.md). A row is updated four times (claim, intent, answer,
  // stored). With room left on each page (fillfactor) the new version stays on its page, where the WAL
  // logs only the bytes between the first and the last that changed, not the whole row (nor a lock record
  // for the old version); the claim, which changes no indexed column, is then a HOT update (no index
  // entry). The columns are laid out for that: what the ingest writes and no transition changes first,
  // then what one transition writes once (the answer), then what every transition moves. A row someone
  // holds is always in a held state, so the state index finds it: the owner index, written by two of the
  // four updates, goes. The table is rebuilt in that order, its rows and seqs kept. Events are only ever
  // read by item: one index (the key) instead of two.
  `
  CREATE TABLE items_rebuilt (
    job_id bigint NOT NULL,
    seq bigint NOT NULL,
    id text COLLATE "C" NOT NULL,
    kind text NOT NULL,
    model text,
    request text,
    content_hash text NOT NULL,
    source_file text NOT NULL,
    source_line integer NOT NULL,
    resolution text,
    has_reference_video smallint NOT NULL DEFAULT 0,
    estimate_usd double precision NOT NULL DEFAULT 0,
    response text,
    response_status integer,
    request_id text,
    total_tokens bigint,
    gateway_charge_usd double precision,
    final_resolution text,
    result_url text,
    task_id text,
    last_error text,
    sha256 text,
    bytes bigint,
    price_snapshot text,
    actual_usd double precision,
    reserved_usd double precision NOT NULL DEFAULT 0,
    attempts integer NOT NULL DEFAULT 0,
    auto_resubmits integer NOT NULL DEFAULT 0,
    unmetered smallint NOT NULL DEFAULT 0,
    output_path text,
    state text COLLATE "C" NOT NULL,
    owner uuid,
    updated_at bigint NOT NULL,
    claimed_by uuid
  ) WITH (fillfactor = 50);
  -- Columns and indexes of items this step does not name (another step may have added some) are kept:
  -- the columns at the end, the indexes rebuilt from their definitions.
  CREATE TEMP TABLE items_rebuild_indexes ON COMMIT DROP AS
    SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = 'items'::regclass AND c.relname NOT IN ('items_pkey', 'items_job_id_id_key', 'items_by_state', 'items_by_owner');
  DO $rebuild$
  DECLARE
    col record;
    cols text;
  BEGIN
    FOR col IN SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, pg_get_expr(d.adbin, d.adrelid) AS def
      FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = 'items'::regclass AND a.attnum > 0 AND NOT a.attisdropped
        AND a.attname NOT IN (SELECT attname FROM pg_attribute WHERE attrelid = 'items_rebuilt'::regclass AND attnum > 0)
      ORDER BY a.attnum
    LOOP
      EXECUTE format('ALTER TABLE items_rebuilt ADD COLUMN %I %s', col.attname, col.type)
        || CASE WHEN col.def IS NULL THEN '' ELSE ' DEFAULT ' || col.def END;
    END LOOP;
    SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols
      FROM pg_attribute WHERE attrelid = 'items'::regclass AND attnum > 0 AND NOT attisdropped;
    EXECUTE format('INSERT INTO items_rebuilt (%s) SELECT %s FROM items ORDER BY job_id, seq', cols, cols);
    FOR col IN SELECT a.attname FROM pg_attribute a WHERE a.attrelid = 'items'::regclass AND a.attnum > 0
        AND NOT a.attisdropped AND a.attnotnull AND a.attname <> 'seq'
    LOOP
      EXECUTE format('ALTER TABLE items_rebuilt ALTER COLUMN %I SET NOT NULL', col.attname);
    END LOOP;
  END
  $rebuild$;
  DROP TABLE items;
  ALTER TABLE items_rebuilt RENAME TO items;
  ALTER TABLE items ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (CACHE 1000);
  SELECT setval(pg_get_serial_sequence('items', 'seq'), COALESCE((SELECT max(seq) FROM items), 0) + 1, false);
  ALTER TABLE items ADD CONSTRAINT items_pkey PRIMARY KEY (job_id, seq);
  ALTER TABLE items ADD CONSTRAINT items_job_id_id_key UNIQUE (job_id, id);
  CREATE INDEX items_by_state ON items (job_id, state, seq);
  DO $indexes$
  DECLARE
    index_def text;
  BEGIN
    FOR index_def IN SELECT def FROM items_rebuild_indexes LOOP EXECUTE index_def; END LOOP;
  END
  $indexes$;
  ALTER TABLE events DROP CONSTRAINT events_pkey;
  DROP INDEX events_by_item;
  ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (job_id, item_id, seq);
  `,
  // A batch of transitions in one statement, so one round trip (apply-changes-function.ts).
  APPLY_CHANGES_FUNCTION,
  // How far each results file is settled (results-file.ts' prefix, as JSON), per host and path: the
  // runners of a job rebuild one file in turn, and each appends to what the last one left.
  `
  CREATE TABLE results_files (
    job_id bigint NOT NULL,
    file text NOT NULL,
    settled text NOT NULL,
    recorded_at bigint NOT NULL,
    PRIMARY KEY (job_id, file)
  );
  `,
  // More room on each page of items for a row's later versions (BENCHMARKS.md, PostgreSQL bytes per row): a chat row
  // is ~900 B and changes three times soon after its ingest; at fillfactor 50 a quarter of those changes
  // found no room left on its page and logged the whole new row instead of the bytes that changed. Pages
  // written from now on (a new journal's all).
  `
  ALTER TABLE items SET (fillfactor = 35);
  `,
  // The job's notifications among its runners (job-notices.ts): one row per notice sent in the current
  // session of overlapping runs, so exactly one runner sends each; `ended:<runner>` marks a runner done.
  `
  CREATE TABLE job_notices (
    job_id bigint NOT NULL,
    notice text NOT NULL,
    runner_id uuid,
    at bigint NOT NULL,
    PRIMARY KEY (job_id, notice)
  );
  `,
  // What the job file said of the budget at the last run: its value applies again only when the file
  // changes it, never over a later explicit --budget.
  `
  ALTER TABLE jobs ADD COLUMN job_file_budget text;
  `,
  // Rows the manifests of the job's last run no longer list (src/core/orphans.ts): 0 listed,
  // 1 orphaned (not sent), 2 adopted by the operator's `retry <id>`. The manifests' records go: the first
  // run after this step reads its manifests whole once, so that every row's listing is decided.
  `
  ALTER TABLE items ADD COLUMN orphan smallint NOT NULL DEFAULT 0;
  CREATE INDEX items_orphaned ON items (job_id, state, seq) WHERE orphan = 1;
  DELETE FROM manifests;
  `,
  // A row's metadata (CSV metadata columns, a JSONL line's `meta`): kept for results.jsonl, never sent.
  `
  ALTER TABLE items ADD COLUMN meta text;
  `,
  // A batch of transitions in one statement, as planned in TypeScript: the intent named by the plan (apply-changes-function.ts).
  APPLY_PLAN_FUNCTION,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export class NewerSchemaError extends Error {
  readonly code = 'GBATCH_SCHEMA_NEWER';
  constructor(location: string, readonly version: number) {
    super(`${location}: journal schema version ${version} is newer than this gbatch supports (${SCHEMA_VERSION}); upgrade gbatch`);
    this.name = 'NewerSchemaError';
  }
}

/** The schema's version, 0 when gbatch has never written here (the version table does not exist). */
export async function schemaVersion(db: Pick<pg.ClientBase, 'query'>): Promise<number> {
  const table = await db.query<{ t: string | null }>(`SELECT to_regclass('gbatch_schema_version')::text AS t`);
  if (table.rows[0]?.t == null) return 0;
  const row = await db.query<{ version: number }>('SELECT version FROM gbatch_schema_version WHERE id = 1');
  return row.rows[0]?.version ?? 0;
}

/**
 * Brings the schema (the first of the connection's search_path) to SCHEMA_VERSION; refuses one written
 * by a newer gbatch. The version is read again under a transaction-scoped advisory lock: N runners
 * connecting at once would otherwise each see version 0 and each create the tables. Returns how many
 * steps this call applied (0: already current, or another process did them).
 */
export async function migrate(pool: Pick<pg.Pool, 'connect'>, location: string): Promise<number> {
  const client = await pool.connect();
  try {
    const seen = await schemaVersion(client);
    if (seen > SCHEMA_VERSION) throw new NewerSchemaError(location, seen);
    if (seen === SCHEMA_VERSION) return 0;
    await client.query('BEGIN');
    try {
      await client.query(MIGRATION_LOCK_SQL);
      await client.query('CREATE TABLE IF NOT EXISTS gbatch_schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)');
      const current = await schemaVersion(client);
      if (current > SCHEMA_VERSION) throw new NewerSchemaError(location, current);
      for (let version = current; version < SCHEMA_VERSION; version++) await client.query(MIGRATIONS[version]!);
      await client.query(`INSERT INTO gbatch_schema_version (id, version) VALUES (1, $1)
        ON CONFLICT (id) DO UPDATE SET version = excluded.version`, [SCHEMA_VERSION]);
      await client.query('COMMIT');
      return SCHEMA_VERSION - current;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}
