-- What the job file said of the budget at the last run: its value applies again only when the file
-- changes it, never over a later explicit --budget.
ALTER TABLE jobs ADD COLUMN job_file_budget text;
