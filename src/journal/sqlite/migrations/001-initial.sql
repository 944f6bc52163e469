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
