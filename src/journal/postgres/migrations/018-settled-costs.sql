-- The cost history (src/core/forecast.ts): per settled row, what it was billed against its estimate and its
-- bound, with what makes rows alike (model, kind, resolution asked and billed, duration, size bucket) and the
-- gateway account (a hash of its URL and key, never the key). Shared by every job of the database: what one
-- job was billed teaches the next one's plan. Written at settlement; merged from another journal by
-- `gbatch history import`, idempotent by id.
CREATE TABLE IF NOT EXISTS settled_costs (
  id text PRIMARY KEY,
  account text NOT NULL,
  model text NOT NULL,
  kind text NOT NULL,
  resolution text,
  final_resolution text,
  duration_s double precision,
  size_bucket integer NOT NULL,
  estimate_usd double precision NOT NULL,
  bound_usd double precision NOT NULL,
  actual_usd double precision NOT NULL,
  settled_at bigint NOT NULL
);
