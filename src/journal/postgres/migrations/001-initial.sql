-- Seqs are drawn 1000 at a time per session (an ingest draws one per row; gaps are harmless: only the
-- order counts). Ids and states compare as bytes (COLLATE "C"): their indexes do not pay for the
-- database's collation, and nothing sorts them for a reader. Money is double precision (SQLite's REAL:
-- both adapters round alike); JSON is text, kept exactly as written (results.jsonl splices `response`
-- and `last_error` raw). Items and events carry no foreign key to jobs: a check per row would tax every
-- ingest and transition for a rule the code keeps.
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
