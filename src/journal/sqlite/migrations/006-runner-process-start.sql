-- The lock's runner identified beyond its pid (reused after it exits): boot id and process start time.
ALTER TABLE runner_lock ADD COLUMN process_start TEXT;
