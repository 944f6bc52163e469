-- The cost history (src/core/forecast.ts): per settled row, what it was billed against its estimate and its
-- bound, with what makes rows alike (model, kind, resolution asked and billed, duration, size bucket) and the
-- gateway account (a hash of its URL and key, never the key). Written at settlement; merged from another
-- journal by `gbatch history import`, idempotent by id.
CREATE TABLE IF NOT EXISTS settled_costs (
  id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  model TEXT NOT NULL,
  kind TEXT NOT NULL,
  resolution TEXT,
  final_resolution TEXT,
  duration_s REAL,
  size_bucket INTEGER NOT NULL,
  estimate_usd REAL NOT NULL,
  bound_usd REAL NOT NULL,
  actual_usd REAL NOT NULL,
  settled_at INTEGER NOT NULL
);
