-- How far each results file is settled (results-file.ts' prefix, as JSON), per host and path: the
-- runners of a job rebuild one file in turn, and each appends to what the last one left.
CREATE TABLE results_files (
  job_id bigint NOT NULL,
  file text NOT NULL,
  settled text NOT NULL,
  recorded_at bigint NOT NULL,
  PRIMARY KEY (job_id, file)
);
