// Versioned migrations of the PostgreSQL journal schema. Append new steps; never edit a shipped one.
// One database holds many jobs: every table is keyed by the job.
import type pg from 'pg';
import { MIGRATION_LOCK_SQL } from './advisory-locks.js';

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
  INSERT INTO items_rebuilt (job_id, seq, id, kind, model, request, content_hash, source_file, source_line, resolution,
      has_reference_video, estimate_usd, response, response_status, request_id, total_tokens, gateway_charge_usd,
      final_resolution, result_url, task_id, last_error, sha256, bytes, price_snapshot, actual_usd, reserved_usd, attempts,
      auto_resubmits, unmetered, output_path, state, owner, updated_at, claimed_by)
    SELECT job_id, seq, id, kind, model, request, content_hash, source_file, source_line, resolution,
      has_reference_video, estimate_usd, response, response_status, request_id, total_tokens, gateway_charge_usd,
      final_resolution, result_url, task_id, last_error, sha256, bytes, price_snapshot, actual_usd, reserved_usd, attempts,
      auto_resubmits, unmetered, output_path, state, owner, updated_at, claimed_by
    FROM items ORDER BY job_id, seq;
  DROP TABLE items;
  ALTER TABLE items_rebuilt RENAME TO items;
  ALTER TABLE items ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (CACHE 1000);
  SELECT setval(pg_get_serial_sequence('items', 'seq'), COALESCE((SELECT max(seq) FROM items), 0) + 1, false);
  ALTER TABLE items ADD CONSTRAINT items_pkey PRIMARY KEY (job_id, seq);
  ALTER TABLE items ADD CONSTRAINT items_job_id_id_key UNIQUE (job_id, id);
  CREATE INDEX items_by_state ON items (job_id, state, seq);
  ALTER TABLE events DROP CONSTRAINT events_pkey;
  DROP INDEX events_by_item;
  ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (job_id, item_id, seq);
  `,
  // A batch of transitions in one statement, so one round trip: a runner's group commit calls it alone
  // (autocommit: the call is the transaction). In order: the job's write lock (shared), the runner's
  // standing (not swept, lease not expired: else GB003), each row checked and written compare-and-set
  // on its expected state and on whose it is (else GB001, naming the first that moved, and its state now),
  // their events logged in batch order, the job's money moved and the budget checked
  // under the job's row lock (else GB002). Any error rolls the whole batch back. The caller judged each
  // transition (the pure table) from the state it expects; the patch is keyed by column name.
  `
  CREATE FUNCTION gbatch_apply_changes(p_job bigint, p_runner uuid, p_now bigint, p_changes jsonb, p_defer boolean)
  RETURNS void LANGUAGE plpgsql AS $fn$
  DECLARE
    v_ids text[];
    v_done text[];
    v_stale text;
    v_actual_state text;
    v_reserving text;
    v_reserved double precision;
    v_settled double precision;
    v_job record;
  BEGIN
    IF p_defer THEN PERFORM set_config('synchronous_commit', 'off', true); END IF;
    PERFORM pg_advisory_xact_lock_shared(hashtext(current_schema() || ':gbatch:write'), p_job::int);
    IF p_runner IS NOT NULL THEN
      PERFORM 1 FROM runners WHERE job_id = p_job AND runner_id = p_runner AND swept_at IS NULL
        AND lease_until > (extract(epoch from clock_timestamp()) * 1000)::bigint FOR KEY SHARE;
      IF NOT FOUND THEN RAISE EXCEPTION 'runner lost its standing' USING ERRCODE = 'GB003'; END IF;
    END IF;
    v_ids := ARRAY(SELECT e->>'id' FROM jsonb_array_elements(p_changes) e);
    -- Every row judged as it is now: the first (in batch order) that is missing, in another state, or
    -- another runner's; the first that reserves more; and the money the batch moves. No row lock (each
    -- would cost a WAL record): the write below is compare-and-set on the same conditions.
    SELECT (array_agg(c.x->>'id' ORDER BY c.n) FILTER (WHERE o.id IS NULL OR o.state <> c.x->>'f' OR (o.owner IS NOT NULL AND o.owner IS DISTINCT FROM p_runner)))[1],
        (array_agg(o.state ORDER BY c.n) FILTER (WHERE o.id IS NULL OR o.state <> c.x->>'f' OR (o.owner IS NOT NULL AND o.owner IS DISTINCT FROM p_runner)))[1],
        (array_agg(c.x->>'id' ORDER BY c.n) FILTER (WHERE (c.x->'p') ? 'reserved_usd' AND (c.x->'p'->>'reserved_usd')::double precision > o.reserved_usd))[1],
        COALESCE(sum(CASE WHEN (c.x->'p') ? 'reserved_usd' THEN (c.x->'p'->>'reserved_usd')::double precision - o.reserved_usd ELSE 0 END), 0),
        COALESCE(sum(CASE WHEN (c.x->'p') ? 'actual_usd' THEN COALESCE((c.x->'p'->>'actual_usd')::double precision, 0) - COALESCE(o.actual_usd, 0) ELSE 0 END), 0)
      INTO v_stale, v_actual_state, v_reserving, v_reserved, v_settled
      FROM jsonb_array_elements(p_changes) WITH ORDINALITY AS c(x, n)
      LEFT JOIN (SELECT i.id, i.state, i.owner, i.reserved_usd, i.actual_usd FROM items i
        WHERE i.job_id = p_job AND i.id = ANY(v_ids)) o ON o.id = c.x->>'id';
    IF v_stale IS NOT NULL THEN
      RAISE EXCEPTION 'item moved' USING ERRCODE = 'GB001', DETAIL = json_build_object('id', v_stale, 'state', v_actual_state)::text;
    END IF;
    WITH written AS (
      UPDATE items i SET state = c.x->>'t', updated_at = p_now, owner = (c.x->>'o')::uuid,
        attempts = CASE WHEN c.p ? 'attempts' THEN (c.p->>'attempts')::integer ELSE i.attempts END,
        auto_resubmits = CASE WHEN c.p ? 'auto_resubmits' THEN (c.p->>'auto_resubmits')::integer ELSE i.auto_resubmits END,
        task_id = CASE WHEN c.p ? 'task_id' THEN (c.p->>'task_id')::text ELSE i.task_id END,
        estimate_usd = CASE WHEN c.p ? 'estimate_usd' THEN (c.p->>'estimate_usd')::double precision ELSE i.estimate_usd END,
        reserved_usd = CASE WHEN c.p ? 'reserved_usd' THEN (c.p->>'reserved_usd')::double precision ELSE i.reserved_usd END,
        price_snapshot = CASE WHEN c.p ? 'price_snapshot' THEN (c.p->>'price_snapshot')::text ELSE i.price_snapshot END,
        actual_usd = CASE WHEN c.p ? 'actual_usd' THEN (c.p->>'actual_usd')::double precision ELSE i.actual_usd END,
        total_tokens = CASE WHEN c.p ? 'total_tokens' THEN (c.p->>'total_tokens')::bigint ELSE i.total_tokens END,
        final_resolution = CASE WHEN c.p ? 'final_resolution' THEN (c.p->>'final_resolution')::text ELSE i.final_resolution END,
        gateway_charge_usd = CASE WHEN c.p ? 'gateway_charge_usd' THEN (c.p->>'gateway_charge_usd')::double precision ELSE i.gateway_charge_usd END,
        result_url = CASE WHEN c.p ? 'result_url' THEN (c.p->>'result_url')::text ELSE i.result_url END,
        response = CASE WHEN c.p ? 'response' THEN (c.p->>'response')::text ELSE i.response END,
        response_status = CASE WHEN c.p ? 'response_status' THEN (c.p->>'response_status')::integer ELSE i.response_status END,
        request_id = CASE WHEN c.p ? 'request_id' THEN (c.p->>'request_id')::text ELSE i.request_id END,
        output_path = CASE WHEN c.p ? 'output_path' THEN (c.p->>'output_path')::text ELSE i.output_path END,
        sha256 = CASE WHEN c.p ? 'sha256' THEN (c.p->>'sha256')::text ELSE i.sha256 END,
        bytes = CASE WHEN c.p ? 'bytes' THEN (c.p->>'bytes')::bigint ELSE i.bytes END,
        last_error = CASE WHEN c.p ? 'last_error' THEN (c.p->>'last_error')::text ELSE i.last_error END,
        unmetered = CASE WHEN c.p ? 'unmetered' THEN (c.p->>'unmetered')::smallint ELSE i.unmetered END
      FROM (SELECT e AS x, e->'p' AS p FROM jsonb_array_elements(p_changes) e) c
      WHERE i.job_id = p_job AND i.id = ANY(v_ids) AND i.id = c.x->>'id'
        AND i.state = c.x->>'f' AND (i.owner IS NULL OR i.owner = p_runner)
      RETURNING i.id)
    SELECT array_agg(id) INTO v_done FROM written;
    IF cardinality(v_done) IS DISTINCT FROM cardinality(v_ids) THEN
      -- A row moved between the look and the write (another writer committed): the first not written.
      SELECT c.x->>'id', i.state INTO v_stale, v_actual_state
        FROM jsonb_array_elements(p_changes) WITH ORDINALITY AS c(x, n)
        LEFT JOIN items i ON i.job_id = p_job AND i.id = c.x->>'id'
        WHERE NOT (c.x->>'id' = ANY(COALESCE(v_done, '{}'))) ORDER BY c.n LIMIT 1;
      RAISE EXCEPTION 'item moved' USING ERRCODE = 'GB001', DETAIL = json_build_object('id', v_stale, 'state', v_actual_state)::text;
    END IF;
    INSERT INTO events (job_id, item_id, at, event, from_state, to_state, detail)
      SELECT p_job, c.x->>'id', p_now, c.x->>'e', c.x->>'f', c.x->>'t', c.x->>'d'
      FROM jsonb_array_elements(p_changes) WITH ORDINALITY AS c(x, n) ORDER BY c.n;
    IF v_reserved <> 0 OR v_settled <> 0 THEN
      UPDATE jobs SET reserved_usd = reserved_usd + v_reserved, actual_usd = actual_usd + v_settled WHERE id = p_job
        RETURNING reserved_usd, actual_usd, budget_usd INTO v_job;
      IF v_reserving IS NOT NULL AND v_job.budget_usd IS NOT NULL AND v_job.reserved_usd + v_job.actual_usd > v_job.budget_usd + 1e-9 THEN
        RAISE EXCEPTION 'over budget' USING ERRCODE = 'GB002', DETAIL = json_build_object('id', v_reserving, 'budget', v_job.budget_usd,
          'held', v_job.reserved_usd + v_job.actual_usd - v_reserved - v_settled, 'asked', v_reserved)::text;
      END IF;
    END IF;
  END
  $fn$;
  `,
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
