-- The job's notifications among its runners (job-notices.ts): one row per notice sent in the current
-- session of overlapping runs, so exactly one runner sends each; `ended:<runner>` marks a runner done.
CREATE TABLE job_notices (
  job_id bigint NOT NULL,
  notice text NOT NULL,
  runner_id uuid,
  at bigint NOT NULL,
  PRIMARY KEY (job_id, notice)
);
