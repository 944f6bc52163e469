-- How each run ended (exit code, why it stopped), written at its start and its end: `status` shows the
-- last one; a row never ended is a run that was killed.
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
