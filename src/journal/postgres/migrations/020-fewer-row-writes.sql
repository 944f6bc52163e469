-- Fewer WAL bytes per row (BENCHMARKS.md, pg-bytes). Three of a row's writes cost more than what they serve:
-- - The trigger that stamped a row's times as its state moved (014): PostgreSQL locks each row before a BEFORE ROW
--   trigger runs, one WAL record per move. gbatch_apply_plan, the one write of a row's moves (019), stamps them in
--   its UPDATE instead, by the rule of src/journal/item-times.ts; the ingest's replacement of a row does the same.
-- - Every move of a row's state inserts into each of its table's indexes. The state index leaves out `downloaded`
--   rows, the bulk of a finished job, which a scan of the job in manifest order finds as fast; the model index
--   leaves out the rows in flight (submitting, submitted, running, succeeded), which the state index finds
--   (src/journal/postgres/summaries.ts reads a model's rows from both). A chat row's move to `submitting`, to
--   `succeeded` and to `downloaded` then writes three index entries fewer.
-- - The cost history's key: a settlement's id is 32 characters, a B-tree entry of 48 bytes at a random place of the
--   index (half-full pages, frequent splits); its 16-byte digest keeps an id once all the same.
-- Rows stay on their page as they grow: a row is ingested with room for its later versions (fillfactor 10), so a
-- move logs the bytes that changed and not the whole row (with a lock record) on another page.
-- The body of gbatch_apply_plan this step installed (the times stamped in its UPDATE) is ../functions/apply-plan.sql
-- verbatim, which the migrator applies after the steps (test/journal/postgres/schema-upgrades.test.ts).
DROP TRIGGER item_times ON items;
DROP FUNCTION gbatch_item_times();
DROP INDEX items_by_state;
CREATE INDEX items_by_state ON items (job_id, state, seq) WHERE state <> 'downloaded';
DROP INDEX items_by_model;
CREATE INDEX items_by_model ON items (job_id, model, seq)
  WHERE state NOT IN ('submitting', 'submitted', 'running', 'succeeded');
ALTER TABLE items SET (fillfactor = 10);
ALTER TABLE settled_costs DROP CONSTRAINT settled_costs_pkey;
CREATE UNIQUE INDEX settled_costs_by_id_digest ON settled_costs ((md5(id)::uuid));
