-- A row's metadata (CSV metadata columns, a JSONL line's `meta`): kept for results.jsonl, never sent.
ALTER TABLE items ADD COLUMN meta TEXT;
