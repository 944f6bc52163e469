-- `gbatch serve`'s catalog: the files clients uploaded (and those derived from batches), and the batches
-- with their owner and OpenAI status. `record` is the rest of the object as JSON.
CREATE TABLE serve_files (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX serve_files_by_owner ON serve_files (owner, seq);
CREATE TABLE serve_batches (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX serve_batches_by_owner ON serve_batches (owner, seq);
CREATE INDEX serve_batches_by_status ON serve_batches (status);
