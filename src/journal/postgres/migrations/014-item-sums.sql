-- Summaries, so that `status`, `report` and a dashboard read a few rows instead of every row and event of a job.
-- item_sums holds parts: each statement that inserts, changes or removes rows appends the difference it made per
-- state, kind, model, resolution and error code ('' for none), and a read adds the parts up. Several runners write
-- a job at once: appending never waits on another runner's row lock, where one row per job would serialise every
-- transition (and deadlock batches that touch two keys in different orders). gbatch_compact_summaries folds a
-- job's parts into one per key now and then. job_activity holds parts of the job's first submission and last
-- event the same way; video_durations each video task's submission-to-success time. Each row's last attempt's
-- times are stamped on it as its state moves (a trigger before the update).
CREATE FUNCTION gbatch_error_code(p_error text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
  IF p_error IS NULL THEN RETURN NULL; END IF;
  RETURN (p_error::jsonb)->>'code';
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$fn$;
CREATE TABLE item_sums (
  job_id bigint NOT NULL,
  state text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  model text COLLATE "C" NOT NULL,
  resolution text COLLATE "C" NOT NULL,
  error_code text COLLATE "C" NOT NULL,
  items bigint NOT NULL,
  settled bigint NOT NULL,
  estimated double precision NOT NULL,
  actual double precision NOT NULL,
  settled_estimated double precision NOT NULL,
  reserved double precision NOT NULL,
  over double precision NOT NULL,
  over_n bigint NOT NULL,
  gateway double precision NOT NULL,
  gateway_n bigint NOT NULL,
  tokens bigint NOT NULL,
  tokens_n bigint NOT NULL,
  unmetered bigint NOT NULL
);
CREATE INDEX item_sums_by_job ON item_sums (job_id);
CREATE TABLE job_activity (job_id bigint NOT NULL, first_submit_at bigint, last_at bigint);
CREATE INDEX job_activity_by_job ON job_activity (job_id);
CREATE TABLE video_durations (job_id bigint NOT NULL, ms bigint NOT NULL);
CREATE INDEX video_durations_by_job ON video_durations (job_id, ms);
ALTER TABLE items ADD COLUMN submitted_at bigint;
ALTER TABLE items ADD COLUMN accepted_at bigint;
ALTER TABLE items ADD COLUMN succeeded_at bigint;
ALTER TABLE items ADD COLUMN finished_at bigint;
CREATE INDEX items_by_model ON items (job_id, model, seq);
CREATE INDEX items_by_error_code ON items (job_id, gbatch_error_code(last_error), seq) WHERE last_error IS NOT NULL;

CREATE FUNCTION gbatch_item_sums_on_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO item_sums
  SELECT r.job_id, r.state, r.kind, COALESCE(r.model, ''), COALESCE(r.resolution, ''),
    COALESCE(gbatch_error_code(r.last_error), ''),
    count(*), count(r.actual_usd), sum(r.estimate_usd::numeric), COALESCE(sum(r.actual_usd::numeric), 0),
    COALESCE(sum(r.estimate_usd::numeric) FILTER (WHERE r.actual_usd IS NOT NULL), 0), sum(r.reserved_usd::numeric),
    COALESCE(sum(r.actual_usd::numeric - r.estimate_usd::numeric) FILTER (WHERE r.actual_usd > r.estimate_usd), 0),
    count(*) FILTER (WHERE r.actual_usd > r.estimate_usd),
    COALESCE(sum(r.gateway_charge_usd::numeric), 0), count(r.gateway_charge_usd),
    COALESCE(sum(r.total_tokens), 0), count(r.total_tokens), sum(r.unmetered)
  FROM new_rows r GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END
$fn$;

CREATE FUNCTION gbatch_item_sums_on_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO item_sums
  SELECT r.job_id, r.state, r.kind, COALESCE(r.model, ''), COALESCE(r.resolution, ''),
    COALESCE(gbatch_error_code(r.last_error), ''),
    -count(*), -count(r.actual_usd), -sum(r.estimate_usd::numeric), -COALESCE(sum(r.actual_usd::numeric), 0),
    -COALESCE(sum(r.estimate_usd::numeric) FILTER (WHERE r.actual_usd IS NOT NULL), 0), -sum(r.reserved_usd::numeric),
    -COALESCE(sum(r.actual_usd::numeric - r.estimate_usd::numeric) FILTER (WHERE r.actual_usd > r.estimate_usd), 0),
    -count(*) FILTER (WHERE r.actual_usd > r.estimate_usd),
    -COALESCE(sum(r.gateway_charge_usd::numeric), 0), -count(r.gateway_charge_usd),
    -COALESCE(sum(r.total_tokens), 0), -count(r.total_tokens), -sum(r.unmetered)
  FROM old_rows r GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END
$fn$;

-- Only the rows whose summed columns changed count (a claim or a lease moves none of them).
CREATE FUNCTION gbatch_item_sums_on_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  WITH moved AS (
    SELECT o.*, n.state AS n_state, n.kind AS n_kind, n.model AS n_model, n.resolution AS n_resolution,
      n.last_error AS n_last_error, n.estimate_usd AS n_estimate_usd, n.reserved_usd AS n_reserved_usd,
      n.actual_usd AS n_actual_usd, n.gateway_charge_usd AS n_gateway_charge_usd, n.total_tokens AS n_total_tokens,
      n.unmetered AS n_unmetered
    FROM old_rows o JOIN new_rows n ON n.job_id = o.job_id AND n.seq = o.seq
    WHERE (o.state, o.kind, o.model, o.resolution, o.last_error, o.estimate_usd, o.reserved_usd, o.actual_usd,
        o.gateway_charge_usd, o.total_tokens, o.unmetered)
      IS DISTINCT FROM (n.state, n.kind, n.model, n.resolution, n.last_error, n.estimate_usd, n.reserved_usd,
        n.actual_usd, n.gateway_charge_usd, n.total_tokens, n.unmetered)
  ), signed AS (
    SELECT job_id, -1 AS sign, state, kind, model, resolution, last_error, estimate_usd, reserved_usd, actual_usd,
      gateway_charge_usd, total_tokens, unmetered FROM moved
    UNION ALL
    SELECT job_id, 1, n_state, n_kind, n_model, n_resolution, n_last_error, n_estimate_usd, n_reserved_usd,
      n_actual_usd, n_gateway_charge_usd, n_total_tokens, n_unmetered FROM moved
  )
  INSERT INTO item_sums
  SELECT r.job_id, r.state, r.kind, COALESCE(r.model, ''), COALESCE(r.resolution, ''),
    COALESCE(gbatch_error_code(r.last_error), ''),
    sum(r.sign), COALESCE(sum(r.sign) FILTER (WHERE r.actual_usd IS NOT NULL), 0), sum(r.sign * r.estimate_usd::numeric),
    COALESCE(sum(r.sign * r.actual_usd::numeric), 0),
    COALESCE(sum(r.sign * r.estimate_usd::numeric) FILTER (WHERE r.actual_usd IS NOT NULL), 0), sum(r.sign * r.reserved_usd::numeric),
    COALESCE(sum(r.sign * (r.actual_usd::numeric - r.estimate_usd::numeric)) FILTER (WHERE r.actual_usd > r.estimate_usd), 0),
    COALESCE(sum(r.sign) FILTER (WHERE r.actual_usd > r.estimate_usd), 0),
    COALESCE(sum(r.sign * r.gateway_charge_usd::numeric), 0), COALESCE(sum(r.sign) FILTER (WHERE r.gateway_charge_usd IS NOT NULL), 0),
    COALESCE(sum(r.sign * r.total_tokens), 0), COALESCE(sum(r.sign) FILTER (WHERE r.total_tokens IS NOT NULL), 0),
    sum(r.sign * r.unmetered)
  FROM signed r GROUP BY 1, 2, 3, 4, 5, 6;
  INSERT INTO video_durations (job_id, ms)
  SELECT n.job_id, n.updated_at - n.submitted_at
  FROM old_rows o JOIN new_rows n ON n.job_id = o.job_id AND n.seq = o.seq
  WHERE n.state = 'succeeded' AND o.state IN ('submitted', 'running') AND n.accepted_at IS NOT NULL
    AND n.submitted_at IS NOT NULL;
  RETURN NULL;
END
$fn$;

-- The row's last attempt's times, by the move of its state (src/journal/item-times.ts says the same for SQLite).
CREATE FUNCTION gbatch_item_times() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.state = 'submitting' AND OLD.state <> 'submitting' THEN
    NEW.submitted_at := NEW.updated_at;
    NEW.accepted_at := NULL;
    NEW.succeeded_at := NULL;
  END IF;
  IF NEW.state = 'submitted' AND OLD.state <> 'submitted' THEN NEW.accepted_at := NEW.updated_at; END IF;
  IF NEW.state = 'succeeded' AND OLD.state IN ('submitting', 'submitted', 'running') THEN
    NEW.succeeded_at := NEW.updated_at;
  END IF;
  IF NEW.state IN ('downloaded', 'failed', 'rejected') THEN
    NEW.finished_at := COALESCE(OLD.finished_at, NEW.updated_at);
  ELSE
    NEW.finished_at := NULL;
  END IF;
  RETURN NEW;
END
$fn$;

CREATE FUNCTION gbatch_job_activity_on_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO job_activity (job_id, first_submit_at, last_at)
  SELECT job_id, min(at) FILTER (WHERE event = 'submit'), max(at) FROM new_events GROUP BY job_id;
  RETURN NULL;
END
$fn$;

-- Folds a job's parts into one per key; skipped while another runner folds them.
CREATE FUNCTION gbatch_compact_summaries(p_job bigint) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext(current_schema() || ':gbatch:sums'), p_job::int) THEN RETURN; END IF;
  WITH gone AS (DELETE FROM item_sums WHERE job_id = p_job RETURNING *)
  INSERT INTO item_sums
  SELECT job_id, state, kind, model, resolution, error_code, sum(items), sum(settled), sum(estimated::numeric),
    sum(actual::numeric), sum(settled_estimated::numeric), sum(reserved::numeric), sum(over::numeric), sum(over_n),
    sum(gateway::numeric), sum(gateway_n), sum(tokens), sum(tokens_n), sum(unmetered)
  FROM gone GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(items) <> 0;
  WITH gone AS (DELETE FROM job_activity WHERE job_id = p_job RETURNING *)
  INSERT INTO job_activity SELECT p_job, min(first_submit_at), max(last_at) FROM gone HAVING count(*) > 0;
END
$fn$;

-- What the journal holds already, dated and summed once, before the triggers.
WITH marks AS (
  SELECT job_id, item_id,
    max(seq) FILTER (WHERE event = 'submit') AS submit_seq,
    max(seq) FILTER (WHERE to_state NOT IN ('downloaded', 'failed', 'rejected')) AS open_seq
  FROM events GROUP BY job_id, item_id
), times AS (
  SELECT e.job_id, e.item_id,
    max(e.at) FILTER (WHERE e.seq = m.submit_seq) AS submitted_at,
    max(e.at) FILTER (WHERE e.event IN ('accept', 'attach') AND e.seq > COALESCE(m.submit_seq, 0)) AS accepted_at,
    max(e.at) FILTER (WHERE e.event IN ('complete', 'finish') AND e.seq > COALESCE(m.submit_seq, 0)) AS succeeded_at,
    min(e.at) FILTER (WHERE e.seq > COALESCE(m.open_seq, 0)) AS finished_at
  FROM events e JOIN marks m ON m.job_id = e.job_id AND m.item_id = e.item_id GROUP BY e.job_id, e.item_id
)
UPDATE items i SET submitted_at = t.submitted_at, accepted_at = t.accepted_at, succeeded_at = t.succeeded_at,
  finished_at = CASE WHEN i.state IN ('downloaded', 'failed', 'rejected') THEN t.finished_at END
FROM times t WHERE i.job_id = t.job_id AND i.id = t.item_id;
INSERT INTO video_durations (job_id, ms)
SELECT job_id, at - submitted_at FROM (
  SELECT job_id, event, at,
    max(seq) FILTER (WHERE event = 'submit') OVER w AS submit_seq,
    max(at) FILTER (WHERE event = 'submit') OVER w AS submitted_at,
    max(seq) FILTER (WHERE event IN ('accept', 'attach')) OVER w AS accept_seq
  FROM events WHERE event IN ('submit', 'accept', 'attach', 'finish')
  WINDOW w AS (PARTITION BY job_id, item_id ORDER BY seq ROWS UNBOUNDED PRECEDING)) e
WHERE event = 'finish' AND accept_seq > submit_seq;
INSERT INTO job_activity (job_id, first_submit_at, last_at)
SELECT job_id, min(at) FILTER (WHERE event = 'submit'), max(at) FROM events GROUP BY job_id;
INSERT INTO item_sums
SELECT r.job_id, r.state, r.kind, COALESCE(r.model, ''), COALESCE(r.resolution, ''),
  COALESCE(gbatch_error_code(r.last_error), ''),
  count(*), count(r.actual_usd), sum(r.estimate_usd::numeric), COALESCE(sum(r.actual_usd::numeric), 0),
  COALESCE(sum(r.estimate_usd::numeric) FILTER (WHERE r.actual_usd IS NOT NULL), 0), sum(r.reserved_usd::numeric),
  COALESCE(sum(r.actual_usd::numeric - r.estimate_usd::numeric) FILTER (WHERE r.actual_usd > r.estimate_usd), 0),
  count(*) FILTER (WHERE r.actual_usd > r.estimate_usd),
  COALESCE(sum(r.gateway_charge_usd::numeric), 0), count(r.gateway_charge_usd),
  COALESCE(sum(r.total_tokens), 0), count(r.total_tokens), sum(r.unmetered)
FROM items r GROUP BY 1, 2, 3, 4, 5, 6;

CREATE TRIGGER item_times BEFORE UPDATE OF state ON items FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION gbatch_item_times();
CREATE TRIGGER item_sums_on_insert AFTER INSERT ON items REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION gbatch_item_sums_on_insert();
CREATE TRIGGER item_sums_on_update AFTER UPDATE ON items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION gbatch_item_sums_on_update();
CREATE TRIGGER item_sums_on_delete AFTER DELETE ON items REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION gbatch_item_sums_on_delete();
CREATE TRIGGER job_activity_on_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION gbatch_job_activity_on_insert();
