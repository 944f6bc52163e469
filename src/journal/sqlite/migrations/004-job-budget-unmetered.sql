-- Money promises: the job keeps its budget across runs (backfilled from the options the last run saved);
-- an answer without a usable count is booked at its bound and marked unmetered.
ALTER TABLE job ADD COLUMN budget_usd REAL;
UPDATE job SET budget_usd = json_extract(options, '$.budget') WHERE typeof(json_extract(options, '$.budget')) IN ('integer', 'real');
ALTER TABLE items ADD COLUMN unmetered INTEGER NOT NULL DEFAULT 0;
