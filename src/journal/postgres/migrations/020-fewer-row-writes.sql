-- Fewer WAL bytes per row (BENCHMARKS.md, pg-bytes). Three of a row's writes cost more than what they serve:
-- - The trigger that stamped a row's times as its state moved (014): PostgreSQL locks each row before a BEFORE ROW
--   trigger runs, one WAL record per move. gbatch_apply_plan, the one write of a row's moves (019), stamps them in
--   its UPDATE instead, by the rule of src/journal/item-times.ts; the ingest's replacement of a row does the same.
-- - Every move of a row's state inserts into each of its table's indexes. The state index leaves out `downloaded`
--   rows, the bulk of a finished job, which a scan of the job in manifest order finds as fast; the model index
--   leaves out the rows in flight (submitting, submitted, running, succeeded), which the state index finds
--   (src/journal/postgres/summaries.ts reads a model's rows from both). A chat row's move to `submitting`, to
--   `succeeded` and to `downloaded` then writes three index entries fewer.
-- - The cost history's key: a settlement's id is 32 characters, a B-tree entry of 48 bytes at a random place of the
--   index (half-full pages, frequent splits); its 16-byte digest keeps an id once all the same.
-- Rows stay on their page as they grow: a row is ingested with room for its later versions (fillfactor 10), so a
-- move logs the bytes that changed and not the whole row (with a lock record) on another page.
DROP TRIGGER item_times ON items;
DROP FUNCTION gbatch_item_times();
DROP INDEX items_by_state;
CREATE INDEX items_by_state ON items (job_id, state, seq) WHERE state <> 'downloaded';
DROP INDEX items_by_model;
CREATE INDEX items_by_model ON items (job_id, model, seq)
  WHERE state NOT IN ('submitting', 'submitted', 'running', 'succeeded');
CREATE OR REPLACE FUNCTION gbatch_apply_plan(p_job bigint, p_runner uuid, p_now bigint, p_changes jsonb, p_intent text, p_defer boolean)
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
  -- Every row looked at as it is now: the first (in batch order) that is missing, in another state, or
  -- a runner's it may not take; and what the plan's reservations and charges differ from the rows' (the job's
  -- totals are the sum of its rows; the first row whose reservation rises asks the budget). No row
  -- lock (each would cost a WAL record): the write below is compare-and-set on the same conditions.
  SELECT (array_agg(c.x->>'id' ORDER BY c.n) FILTER (WHERE o.id IS NULL OR o.state <> c.x->>'f' OR NOT (o.owner IS NULL OR o.owner IS NOT DISTINCT FROM p_runner OR COALESCE(c.x->'w' = 'true'::jsonb OR (c.x->'w') ? o.owner::text, false))))[1],
      (array_agg(o.state ORDER BY c.n) FILTER (WHERE o.id IS NULL OR o.state <> c.x->>'f' OR NOT (o.owner IS NULL OR o.owner IS NOT DISTINCT FROM p_runner OR COALESCE(c.x->'w' = 'true'::jsonb OR (c.x->'w') ? o.owner::text, false))))[1],
      (array_agg(c.x->>'id' ORDER BY c.n) FILTER (WHERE (c.x->'p') ? 'reserved_usd' AND (c.x->'p'->>'reserved_usd')::double precision > CASE WHEN (c.x->'p') ? 'carried_usd' THEN 0 ELSE o.reserved_usd - o.carried_usd END))[1],
      COALESCE(sum(CASE WHEN (c.x->'p') ? 'reserved_usd' THEN (c.x->'p'->>'reserved_usd')::double precision + COALESCE((c.x->'p'->>'carried_usd')::double precision, o.carried_usd) - o.reserved_usd ELSE 0 END), 0),
      COALESCE(sum(CASE WHEN (c.x->'p') ? 'actual_usd' THEN COALESCE((c.x->'p'->>'actual_usd')::double precision, 0) - COALESCE(o.actual_usd, 0) ELSE 0 END), 0)
    INTO v_stale, v_actual_state, v_reserving, v_reserved, v_settled
    FROM jsonb_array_elements(p_changes) WITH ORDINALITY AS c(x, n)
    LEFT JOIN (SELECT i.id, i.state, i.owner, i.reserved_usd, i.carried_usd, i.actual_usd FROM items i
      WHERE i.job_id = p_job AND i.id = ANY(v_ids)) o ON o.id = c.x->>'id';
  IF v_stale IS NOT NULL THEN
    RAISE EXCEPTION 'item moved' USING ERRCODE = 'GB001', DETAIL = json_build_object('id', v_stale, 'state', v_actual_state)::text;
  END IF;
  WITH written AS (
    UPDATE items i SET state = c.x->>'t', updated_at = p_now, owner = CASE WHEN c.x ? 'o' THEN (c.x->>'o')::uuid ELSE i.owner END,
      submitted_at = CASE WHEN c.x->>'t' = 'submitting' AND i.state <> 'submitting' THEN p_now ELSE i.submitted_at END,
      accepted_at = CASE WHEN i.state = c.x->>'t' THEN i.accepted_at WHEN c.x->>'t' = 'submitting' THEN NULL
        WHEN c.x->>'t' = 'submitted' THEN p_now ELSE i.accepted_at END,
      succeeded_at = CASE WHEN i.state = c.x->>'t' THEN i.succeeded_at WHEN c.x->>'t' = 'submitting' THEN NULL
        WHEN c.x->>'t' = 'succeeded' AND i.state IN ('submitting', 'submitted', 'running') THEN p_now ELSE i.succeeded_at END,
      finished_at = CASE WHEN i.state = c.x->>'t' THEN i.finished_at
        WHEN c.x->>'t' IN ('downloaded', 'failed', 'rejected') THEN COALESCE(i.finished_at, p_now) ELSE NULL END,
      attempts = CASE WHEN c.p ? 'attempts' THEN (c.p->>'attempts')::integer ELSE i.attempts END,
      auto_resubmits = CASE WHEN c.p ? 'auto_resubmits' THEN (c.p->>'auto_resubmits')::integer ELSE i.auto_resubmits END,
      task_id = CASE WHEN c.p ? 'task_id' THEN (c.p->>'task_id')::text ELSE i.task_id END,
      estimate_usd = CASE WHEN c.p ? 'estimate_usd' THEN (c.p->>'estimate_usd')::double precision ELSE i.estimate_usd END,
      reserved_usd = CASE WHEN c.p ? 'reserved_usd' THEN (c.p->>'reserved_usd')::double precision
        + COALESCE((c.p->>'carried_usd')::double precision, i.carried_usd) ELSE i.reserved_usd END,
      carried_usd = CASE WHEN c.p ? 'carried_usd' THEN (c.p->>'carried_usd')::double precision ELSE i.carried_usd END,
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
      unmetered = CASE WHEN c.p ? 'unmetered' THEN (c.p->>'unmetered')::smallint ELSE i.unmetered END,
      auto_retries = CASE WHEN c.p ? 'auto_retries' THEN (c.p->>'auto_retries')::integer ELSE i.auto_retries END,
      download_failures = CASE WHEN c.p ? 'download_failures' THEN (c.p->>'download_failures')::integer ELSE i.download_failures END
    FROM (SELECT e AS x, e->'p' AS p FROM jsonb_array_elements(p_changes) e) c
    WHERE i.job_id = p_job AND i.id = ANY(v_ids) AND i.id = c.x->>'id'
      AND i.state = c.x->>'f'
      AND (i.owner IS NULL OR i.owner IS NOT DISTINCT FROM p_runner OR COALESCE(c.x->'w' = 'true'::jsonb OR (c.x->'w') ? i.owner::text, false))
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
  -- A cancellation committed before this write is seen (the job row's lock orders them): no intent is
  -- written after it.
  IF p_intent IS NOT NULL AND (SELECT cancelled_at FROM jobs WHERE id = p_job FOR SHARE) IS NOT NULL THEN
    RAISE EXCEPTION 'job cancelled' USING ERRCODE = 'GB004', DETAIL = json_build_object('id', p_intent)::text;
  END IF;
END
$fn$;
ALTER TABLE items SET (fillfactor = 10);
ALTER TABLE settled_costs DROP CONSTRAINT settled_costs_pkey;
CREATE UNIQUE INDEX settled_costs_by_id_digest ON settled_costs ((md5(id)::uuid));
