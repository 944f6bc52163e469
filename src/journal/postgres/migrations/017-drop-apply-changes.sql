-- gbatch_apply_changes (005) was replaced by gbatch_apply_plan (012, 015), which writes a batch the
-- planner (core/plan-changes.ts) decided; nothing calls the old function since, so it goes.
DROP FUNCTION IF EXISTS gbatch_apply_changes(bigint, uuid, bigint, jsonb, boolean);
