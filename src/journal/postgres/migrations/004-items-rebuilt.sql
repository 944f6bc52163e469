-- Fewer bytes per transition (BENCHMARKS.md). A row is updated four times (claim, intent, answer,
-- stored). With room left on each page (fillfactor) the new version stays on its page, where the WAL
-- logs only the bytes between the first and the last that changed, not the whole row (nor a lock record
-- for the old version); the claim, which changes no indexed column, is then a HOT update (no index
-- entry). The columns are laid out for that: what the ingest writes and no transition changes first,
-- then what one transition writes once (the answer), then what every transition moves. A row someone
-- holds is always in a held state, so the state index finds it: the owner index, written by two of the
-- four updates, goes. The table is rebuilt in that order, its rows and seqs kept. Events are only ever
-- read by item: one index (the key) instead of two.
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
