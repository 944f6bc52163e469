-- A narrower item row (issue 11, narrow-keys.ts): new rows keep their sha256 content hash as 32 bytes
-- and their manifest path once in item_texts; rows written before keep theirs inline.
CREATE TABLE IF NOT EXISTS item_texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
ALTER TABLE items ADD COLUMN content_key BLOB;
ALTER TABLE items ADD COLUMN source_ref INTEGER;
