-- What a row keeps of its attempts.
-- carried_usd: what its earlier attempts keep booked (each may have been billed: an uncertain request's bound,
-- an answer's charge), carried when the row is sent again. It is part of reserved_usd, so the job's sums and the
-- budget count it; an attempt's reservation is reserved_usd less it.
-- auto_retries: its automatic sends under --retry-failed (reset by an operator's retry); download_failures: its
-- failed download rounds (reset when it is sent or attached again); kept so that every run, night or server
-- counts the same allowance.
ALTER TABLE items ADD COLUMN carried_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN auto_retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN download_failures INTEGER NOT NULL DEFAULT 0;
