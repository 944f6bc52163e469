-- What a row's earlier attempts keep booked (each may have been billed: an uncertain request's bound, an
-- answer's charge), carried when the row is sent again. It is part of reserved_usd, so the job's sums
-- and the budget count it; an attempt's reservation is reserved_usd less it.
ALTER TABLE items ADD COLUMN carried_usd REAL NOT NULL DEFAULT 0;
