-- `gbatch cancel` (issue 13): the job's cancellation (on the database's clock), which every live runner
-- reads and acknowledges on its runner row (the command waits for that); a `submit` is refused while it stands.
ALTER TABLE jobs ADD COLUMN cancelled_at bigint;
ALTER TABLE jobs ADD COLUMN cancel_reason text;
ALTER TABLE runners ADD COLUMN cancel_seen_at bigint;
