-- What a row keeps of its attempts.
-- carried_usd: what its earlier attempts keep booked (each may have been billed: an uncertain request's bound, an
-- answer's charge), carried when the row is sent again (core/plan-changes.ts). It is part of reserved_usd, so the
-- job's totals and the budget count it.
-- auto_retries: its automatic sends under --retry-failed (reset by an operator's retry); download_failures: its
-- failed download rounds (reset when it is sent or attached again); kept so that every run, night or server counts
-- the same allowance.
-- gbatch_apply_plan (012) is replaced: it stores a planned reservation (the attempt's) on top of the row's carried
-- booking, and writes the two counts. A resend, which moves the carried booking, is written on the rows' heads
-- (transitions.ts), never through this function.
-- This step's CREATE OR REPLACE of gbatch_apply_plan is gone from here: the function's one definition is
-- ../functions/apply-plan.sql, which the migrator applies after the steps, and a later step's body replaced
-- this one's in every upgrade before the last step ran (test/journal/postgres/schema-upgrades.test.ts).
ALTER TABLE items ADD COLUMN carried_usd double precision NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN auto_retries integer NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN download_failures integer NOT NULL DEFAULT 0;
