-- `gbatch cancel` (issue 13): the job's cancellation, which a live runner reads and acknowledges on its
-- lock row (the command waits for that); the journal refuses a `submit` while it stands.
ALTER TABLE job ADD COLUMN cancelled_at INTEGER;
ALTER TABLE job ADD COLUMN cancel_reason TEXT;
ALTER TABLE runner_lock ADD COLUMN cancel_seen_at INTEGER;
