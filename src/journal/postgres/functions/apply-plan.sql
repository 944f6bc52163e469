-- gbatch_apply_plan: the one write of rows on PostgreSQL (batch-apply.ts calls it). A planned batch of transitions
-- (core/plan-changes.ts) written in one statement, so one round trip: a runner's group commit calls it alone
-- (autocommit: the call is the transaction), and so do the batches planned on the rows' heads (transitions.ts:
-- operators' commands, resends, notes, the results file's stores, a sweep).
-- Each element of p_changes is a planned row: its id, expected state (f), next state (t), owner (o: left out when
-- the row keeps its owner, as a note does), patched columns by name (p), its event (e, d), and w: whose rows it may
-- take besides no one's and p_runner's (true: whoever holds it; or an array of runner ids, the gone runners a sweep
-- takes over). p.carried_usd is the row's carried booking after a resend; the stored reservation is the attempt's
-- (p.reserved_usd) on top of the carried booking the row has after the change. A row is named once per call.
-- p_intent is the plan's intent (a submit), or null.
-- The function only writes the plan, guarded, in order: the job's write lock (shared), the runner's standing (not
-- swept, lease not expired: else GB003), each row compare-and-set on its expected state and on whose it is (else
-- GB001, naming the first that moved, and its state now), the row's times stamped as its state moves (the rule of
-- src/journal/item-times.ts), the events in batch order, the job's totals moved by what the rows' money changed and
-- the budget checked under the job's row lock when a reservation rises (else GB002), and an intent refused while
-- the job is cancelled (else GB004). Any error rolls the whole batch back.
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
