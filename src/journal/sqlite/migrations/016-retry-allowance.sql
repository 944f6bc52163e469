-- A row's automatic sends under --retry-failed (reset by an operator's retry) and its failed download rounds
-- (reset when it is sent or attached again), kept so that every run, night or server counts the same allowance.
ALTER TABLE items ADD COLUMN auto_retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN download_failures INTEGER NOT NULL DEFAULT 0;
