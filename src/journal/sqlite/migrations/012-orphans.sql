-- Rows the manifests of the job's last run no longer list (src/core/orphans.ts): 0 listed,
-- 1 orphaned (not sent), 2 adopted by the operator's `retry <id>`. The manifests' records go: the first
-- run after this step reads its manifests whole once, so that every row's listing is decided.
ALTER TABLE items ADD COLUMN orphan INTEGER NOT NULL DEFAULT 0;
CREATE INDEX items_orphaned ON items (state, seq) WHERE orphan = 1;
DELETE FROM manifests;
