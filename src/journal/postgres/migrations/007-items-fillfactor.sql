-- More room on each page of items for a row's later versions (BENCHMARKS.md, PostgreSQL bytes per row): a chat row
-- is ~900 B and changes three times soon after its ingest; at fillfactor 50 a quarter of those changes
-- found no room left on its page and logged the whole new row instead of the bytes that changed. Pages
-- written from now on (a new journal's all).
ALTER TABLE items SET (fillfactor = 35);
