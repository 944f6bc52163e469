-- Summaries, so that `status`, `report` and a dashboard read a few rows instead of every row and event.
-- item_sums: the rows counted and their money summed per state, kind, model, resolution and error code
-- ('' for none); each money sum with its running compensation (*_err: Kahan-Babuska-Neumaier, as SQLite's SUM()
-- adds), so that a million additions and removals still equal the rows' sum. An update or removal of a row moves its part by the triggers below; an ingest adds the
-- part of the rows it inserts itself, in its transaction (a trigger on insert cost ingest a third more).
-- Each row's last attempt's times (submitted, accepted, succeeded, finished) are kept on the row by the
-- transition that reaches them, and each video task's submission-to-success time in video_durations.
CREATE TABLE item_sums (
  state TEXT NOT NULL,
  kind TEXT NOT NULL,
  model TEXT NOT NULL,
  resolution TEXT NOT NULL,
  error_code TEXT NOT NULL,
  items INTEGER NOT NULL DEFAULT 0,
  settled INTEGER NOT NULL DEFAULT 0,
  estimated REAL NOT NULL DEFAULT 0,
  actual REAL NOT NULL DEFAULT 0,
  settled_estimated REAL NOT NULL DEFAULT 0,
  reserved REAL NOT NULL DEFAULT 0,
  over REAL NOT NULL DEFAULT 0,
  over_n INTEGER NOT NULL DEFAULT 0,
  gateway REAL NOT NULL DEFAULT 0,
  gateway_n INTEGER NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  tokens_n INTEGER NOT NULL DEFAULT 0,
  unmetered INTEGER NOT NULL DEFAULT 0,
  estimated_err REAL NOT NULL DEFAULT 0,
  actual_err REAL NOT NULL DEFAULT 0,
  settled_estimated_err REAL NOT NULL DEFAULT 0,
  reserved_err REAL NOT NULL DEFAULT 0,
  over_err REAL NOT NULL DEFAULT 0,
  gateway_err REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (state, kind, model, resolution, error_code)
) WITHOUT ROWID;
ALTER TABLE items ADD COLUMN submitted_at INTEGER;
ALTER TABLE items ADD COLUMN accepted_at INTEGER;
ALTER TABLE items ADD COLUMN succeeded_at INTEGER;
ALTER TABLE items ADD COLUMN finished_at INTEGER;
CREATE TABLE video_durations (id INTEGER PRIMARY KEY, ms INTEGER NOT NULL);
CREATE INDEX video_durations_by_ms ON video_durations (ms);
-- A row browser's filters: by model, and by error code (only rows with an error are in it).
CREATE INDEX items_by_model ON items (model, seq);
CREATE INDEX items_by_error_code ON items ((CASE WHEN json_valid(last_error) THEN json_extract(last_error, '$.code') END), seq)
  WHERE last_error IS NOT NULL;
-- What the journal holds already, summed and dated once (before the triggers, which the dating would fire).
CREATE TEMP TABLE item_marks AS SELECT item_id,
    MAX(CASE WHEN event = 'submit' THEN seq END) AS submit_seq,
    MAX(CASE WHEN to_state NOT IN ('downloaded', 'failed', 'rejected') THEN seq END) AS open_seq
  FROM events GROUP BY item_id;
CREATE TEMP TABLE item_times AS SELECT e.item_id AS item_id,
    MAX(CASE WHEN e.seq = m.submit_seq THEN e.at END) AS submitted_at,
    MAX(CASE WHEN e.event IN ('accept', 'attach') AND e.seq > IFNULL(m.submit_seq, 0) THEN e.at END) AS accepted_at,
    MAX(CASE WHEN e.event IN ('complete', 'finish') AND e.seq > IFNULL(m.submit_seq, 0) THEN e.at END) AS succeeded_at,
    MIN(CASE WHEN e.seq > IFNULL(m.open_seq, 0) THEN e.at END) AS finished_at
  FROM events e JOIN item_marks m ON m.item_id = e.item_id GROUP BY e.item_id;
UPDATE items SET submitted_at = t.submitted_at, accepted_at = t.accepted_at, succeeded_at = t.succeeded_at,
    finished_at = CASE WHEN items.state IN ('downloaded', 'failed', 'rejected') THEN t.finished_at END
  FROM temp.item_times t WHERE t.item_id = items.id;
DROP TABLE temp.item_marks;
DROP TABLE temp.item_times;
INSERT INTO video_durations (ms)
  SELECT at - submitted_at FROM (
    SELECT event, at,
      MAX(CASE WHEN event = 'submit' THEN seq END) OVER w AS submit_seq,
      MAX(CASE WHEN event = 'submit' THEN at END) OVER w AS submitted_at,
      MAX(CASE WHEN event IN ('accept', 'attach') THEN seq END) OVER w AS accept_seq
    FROM events WHERE event IN ('submit', 'accept', 'attach', 'finish')
    WINDOW w AS (PARTITION BY item_id ORDER BY seq ROWS UNBOUNDED PRECEDING))
  WHERE event = 'finish' AND accept_seq > submit_seq;
INSERT INTO item_sums
  SELECT state, kind, IFNULL(model, ''), IFNULL(resolution, ''),
    IFNULL(CASE WHEN json_valid(last_error) THEN CAST(json_extract(last_error, '$.code') AS TEXT) END, ''),
    COUNT(*), SUM(actual_usd IS NOT NULL), SUM(estimate_usd), IFNULL(SUM(actual_usd), 0),
    IFNULL(SUM(CASE WHEN actual_usd IS NOT NULL THEN estimate_usd END), 0), SUM(reserved_usd),
    IFNULL(SUM(CASE WHEN actual_usd > estimate_usd THEN actual_usd - estimate_usd END), 0),
    SUM(IFNULL(actual_usd > estimate_usd, 0)), IFNULL(SUM(gateway_charge_usd), 0), COUNT(gateway_charge_usd),
    IFNULL(SUM(total_tokens), 0), COUNT(total_tokens), SUM(unmetered), 0, 0, 0, 0, 0, 0
  FROM items GROUP BY 1, 2, 3, 4, 5;
CREATE TRIGGER item_sums_on_update AFTER UPDATE OF state, kind, model, resolution, last_error, estimate_usd, reserved_usd,
    actual_usd, gateway_charge_usd, total_tokens, unmetered ON items
  WHEN OLD.state IS NOT NEW.state OR OLD.kind IS NOT NEW.kind OR OLD.model IS NOT NEW.model
    OR OLD.resolution IS NOT NEW.resolution OR OLD.last_error IS NOT NEW.last_error
    OR OLD.estimate_usd IS NOT NEW.estimate_usd OR OLD.reserved_usd IS NOT NEW.reserved_usd
    OR OLD.actual_usd IS NOT NEW.actual_usd OR OLD.gateway_charge_usd IS NOT NEW.gateway_charge_usd
    OR OLD.total_tokens IS NOT NEW.total_tokens OR OLD.unmetered IS NOT NEW.unmetered
BEGIN
  INSERT INTO item_sums VALUES (OLD.state, OLD.kind, IFNULL(OLD.model, ''), IFNULL(OLD.resolution, ''),
    IFNULL(CASE WHEN json_valid(OLD.last_error) THEN CAST(json_extract(OLD.last_error, '$.code') AS TEXT) END, ''),
    -1, -(OLD.actual_usd IS NOT NULL), -OLD.estimate_usd, -IFNULL(OLD.actual_usd, 0),
    -(CASE WHEN OLD.actual_usd IS NOT NULL THEN OLD.estimate_usd ELSE 0 END), -OLD.reserved_usd,
    -(CASE WHEN OLD.actual_usd > OLD.estimate_usd THEN OLD.actual_usd - OLD.estimate_usd ELSE 0 END),
    -IFNULL(OLD.actual_usd > OLD.estimate_usd, 0), -IFNULL(OLD.gateway_charge_usd, 0), -(OLD.gateway_charge_usd IS NOT NULL),
    -IFNULL(OLD.total_tokens, 0), -(OLD.total_tokens IS NOT NULL), -OLD.unmetered, 0, 0, 0, 0, 0, 0)
  ON CONFLICT DO UPDATE SET items = items + excluded.items,
    settled = settled + excluded.settled,
    estimated = estimated + excluded.estimated,
    estimated_err = estimated_err + excluded.estimated_err + CASE WHEN abs(estimated) >= abs(excluded.estimated) THEN (estimated - (estimated + excluded.estimated)) + excluded.estimated ELSE (excluded.estimated - (estimated + excluded.estimated)) + estimated END,
    actual = actual + excluded.actual,
    actual_err = actual_err + excluded.actual_err + CASE WHEN abs(actual) >= abs(excluded.actual) THEN (actual - (actual + excluded.actual)) + excluded.actual ELSE (excluded.actual - (actual + excluded.actual)) + actual END,
    settled_estimated = settled_estimated + excluded.settled_estimated,
    settled_estimated_err = settled_estimated_err + excluded.settled_estimated_err + CASE WHEN abs(settled_estimated) >= abs(excluded.settled_estimated) THEN (settled_estimated - (settled_estimated + excluded.settled_estimated)) + excluded.settled_estimated ELSE (excluded.settled_estimated - (settled_estimated + excluded.settled_estimated)) + settled_estimated END,
    reserved = reserved + excluded.reserved,
    reserved_err = reserved_err + excluded.reserved_err + CASE WHEN abs(reserved) >= abs(excluded.reserved) THEN (reserved - (reserved + excluded.reserved)) + excluded.reserved ELSE (excluded.reserved - (reserved + excluded.reserved)) + reserved END,
    over = over + excluded.over,
    over_err = over_err + excluded.over_err + CASE WHEN abs(over) >= abs(excluded.over) THEN (over - (over + excluded.over)) + excluded.over ELSE (excluded.over - (over + excluded.over)) + over END,
    gateway = gateway + excluded.gateway,
    gateway_err = gateway_err + excluded.gateway_err + CASE WHEN abs(gateway) >= abs(excluded.gateway) THEN (gateway - (gateway + excluded.gateway)) + excluded.gateway ELSE (excluded.gateway - (gateway + excluded.gateway)) + gateway END,
    over_n = over_n + excluded.over_n,
    gateway_n = gateway_n + excluded.gateway_n,
    tokens = tokens + excluded.tokens,
    tokens_n = tokens_n + excluded.tokens_n,
    unmetered = unmetered + excluded.unmetered;
  INSERT INTO item_sums VALUES (NEW.state, NEW.kind, IFNULL(NEW.model, ''), IFNULL(NEW.resolution, ''),
    IFNULL(CASE WHEN json_valid(NEW.last_error) THEN CAST(json_extract(NEW.last_error, '$.code') AS TEXT) END, ''),
    1, NEW.actual_usd IS NOT NULL, NEW.estimate_usd, IFNULL(NEW.actual_usd, 0),
    CASE WHEN NEW.actual_usd IS NOT NULL THEN NEW.estimate_usd ELSE 0 END, NEW.reserved_usd,
    CASE WHEN NEW.actual_usd > NEW.estimate_usd THEN NEW.actual_usd - NEW.estimate_usd ELSE 0 END,
    IFNULL(NEW.actual_usd > NEW.estimate_usd, 0), IFNULL(NEW.gateway_charge_usd, 0), NEW.gateway_charge_usd IS NOT NULL,
    IFNULL(NEW.total_tokens, 0), NEW.total_tokens IS NOT NULL, NEW.unmetered, 0, 0, 0, 0, 0, 0)
  ON CONFLICT DO UPDATE SET items = items + excluded.items,
    settled = settled + excluded.settled,
    estimated = estimated + excluded.estimated,
    estimated_err = estimated_err + excluded.estimated_err + CASE WHEN abs(estimated) >= abs(excluded.estimated) THEN (estimated - (estimated + excluded.estimated)) + excluded.estimated ELSE (excluded.estimated - (estimated + excluded.estimated)) + estimated END,
    actual = actual + excluded.actual,
    actual_err = actual_err + excluded.actual_err + CASE WHEN abs(actual) >= abs(excluded.actual) THEN (actual - (actual + excluded.actual)) + excluded.actual ELSE (excluded.actual - (actual + excluded.actual)) + actual END,
    settled_estimated = settled_estimated + excluded.settled_estimated,
    settled_estimated_err = settled_estimated_err + excluded.settled_estimated_err + CASE WHEN abs(settled_estimated) >= abs(excluded.settled_estimated) THEN (settled_estimated - (settled_estimated + excluded.settled_estimated)) + excluded.settled_estimated ELSE (excluded.settled_estimated - (settled_estimated + excluded.settled_estimated)) + settled_estimated END,
    reserved = reserved + excluded.reserved,
    reserved_err = reserved_err + excluded.reserved_err + CASE WHEN abs(reserved) >= abs(excluded.reserved) THEN (reserved - (reserved + excluded.reserved)) + excluded.reserved ELSE (excluded.reserved - (reserved + excluded.reserved)) + reserved END,
    over = over + excluded.over,
    over_err = over_err + excluded.over_err + CASE WHEN abs(over) >= abs(excluded.over) THEN (over - (over + excluded.over)) + excluded.over ELSE (excluded.over - (over + excluded.over)) + over END,
    gateway = gateway + excluded.gateway,
    gateway_err = gateway_err + excluded.gateway_err + CASE WHEN abs(gateway) >= abs(excluded.gateway) THEN (gateway - (gateway + excluded.gateway)) + excluded.gateway ELSE (excluded.gateway - (gateway + excluded.gateway)) + gateway END,
    over_n = over_n + excluded.over_n,
    gateway_n = gateway_n + excluded.gateway_n,
    tokens = tokens + excluded.tokens,
    tokens_n = tokens_n + excluded.tokens_n,
    unmetered = unmetered + excluded.unmetered;
END;
CREATE TRIGGER item_sums_on_delete AFTER DELETE ON items
BEGIN
  INSERT INTO item_sums VALUES (OLD.state, OLD.kind, IFNULL(OLD.model, ''), IFNULL(OLD.resolution, ''),
    IFNULL(CASE WHEN json_valid(OLD.last_error) THEN CAST(json_extract(OLD.last_error, '$.code') AS TEXT) END, ''),
    -1, -(OLD.actual_usd IS NOT NULL), -OLD.estimate_usd, -IFNULL(OLD.actual_usd, 0),
    -(CASE WHEN OLD.actual_usd IS NOT NULL THEN OLD.estimate_usd ELSE 0 END), -OLD.reserved_usd,
    -(CASE WHEN OLD.actual_usd > OLD.estimate_usd THEN OLD.actual_usd - OLD.estimate_usd ELSE 0 END),
    -IFNULL(OLD.actual_usd > OLD.estimate_usd, 0), -IFNULL(OLD.gateway_charge_usd, 0), -(OLD.gateway_charge_usd IS NOT NULL),
    -IFNULL(OLD.total_tokens, 0), -(OLD.total_tokens IS NOT NULL), -OLD.unmetered, 0, 0, 0, 0, 0, 0)
  ON CONFLICT DO UPDATE SET items = items + excluded.items,
    settled = settled + excluded.settled,
    estimated = estimated + excluded.estimated,
    estimated_err = estimated_err + excluded.estimated_err + CASE WHEN abs(estimated) >= abs(excluded.estimated) THEN (estimated - (estimated + excluded.estimated)) + excluded.estimated ELSE (excluded.estimated - (estimated + excluded.estimated)) + estimated END,
    actual = actual + excluded.actual,
    actual_err = actual_err + excluded.actual_err + CASE WHEN abs(actual) >= abs(excluded.actual) THEN (actual - (actual + excluded.actual)) + excluded.actual ELSE (excluded.actual - (actual + excluded.actual)) + actual END,
    settled_estimated = settled_estimated + excluded.settled_estimated,
    settled_estimated_err = settled_estimated_err + excluded.settled_estimated_err + CASE WHEN abs(settled_estimated) >= abs(excluded.settled_estimated) THEN (settled_estimated - (settled_estimated + excluded.settled_estimated)) + excluded.settled_estimated ELSE (excluded.settled_estimated - (settled_estimated + excluded.settled_estimated)) + settled_estimated END,
    reserved = reserved + excluded.reserved,
    reserved_err = reserved_err + excluded.reserved_err + CASE WHEN abs(reserved) >= abs(excluded.reserved) THEN (reserved - (reserved + excluded.reserved)) + excluded.reserved ELSE (excluded.reserved - (reserved + excluded.reserved)) + reserved END,
    over = over + excluded.over,
    over_err = over_err + excluded.over_err + CASE WHEN abs(over) >= abs(excluded.over) THEN (over - (over + excluded.over)) + excluded.over ELSE (excluded.over - (over + excluded.over)) + over END,
    gateway = gateway + excluded.gateway,
    gateway_err = gateway_err + excluded.gateway_err + CASE WHEN abs(gateway) >= abs(excluded.gateway) THEN (gateway - (gateway + excluded.gateway)) + excluded.gateway ELSE (excluded.gateway - (gateway + excluded.gateway)) + gateway END,
    over_n = over_n + excluded.over_n,
    gateway_n = gateway_n + excluded.gateway_n,
    tokens = tokens + excluded.tokens,
    tokens_n = tokens_n + excluded.tokens_n,
    unmetered = unmetered + excluded.unmetered;
END;
-- A video task's submission-to-success time, as it succeeds (submitted or running to succeeded after an accept).
CREATE TRIGGER video_duration_on_success AFTER UPDATE OF state ON items
  WHEN NEW.state = 'succeeded' AND OLD.state IN ('submitted', 'running') AND NEW.accepted_at IS NOT NULL
    AND NEW.submitted_at IS NOT NULL
BEGIN
  INSERT INTO video_durations (ms) VALUES (NEW.updated_at - NEW.submitted_at);
END;
