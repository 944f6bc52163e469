-- Many runners on one job. A pending row is claimed (claimed_by) by the runner about to send it, so
-- runners take disjoint rows; a row in flight is held (owner) by the runner that sent it. The job keeps
-- running totals of its money, moved in the same transaction as the rows: the budget is checked against
-- them, whoever reserves. A 402 stops the job's submissions on every runner (stopped_at). Runners that
-- are gone are marked swept once their rows were taken over. The account's shared pace and pause live
-- under a hash of its gateway and key (never the key).
ALTER TABLE items ADD COLUMN claimed_by uuid;
CREATE INDEX items_by_owner ON items (job_id, owner) WHERE owner IS NOT NULL;
ALTER TABLE jobs ADD COLUMN reserved_usd double precision NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN actual_usd double precision NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN stop_reason text;
ALTER TABLE jobs ADD COLUMN stopped_at bigint;
UPDATE jobs j SET reserved_usd = s.reserved, actual_usd = s.actual
  FROM (SELECT job_id, COALESCE(SUM(reserved_usd), 0) AS reserved, COALESCE(SUM(actual_usd), 0) AS actual FROM items GROUP BY job_id) s
  WHERE s.job_id = j.id;
ALTER TABLE runners ADD COLUMN swept_at bigint;
CREATE TABLE accounts (
  account text PRIMARY KEY,
  next_send_at bigint NOT NULL DEFAULT 0,
  paused_until bigint NOT NULL DEFAULT 0
);
