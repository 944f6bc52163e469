-- The per-item event index cost a random B-tree insert on every transition of a hot run; reading one
-- item's history (rare: an operator's question) scans the log instead.
DROP INDEX events_by_item;
