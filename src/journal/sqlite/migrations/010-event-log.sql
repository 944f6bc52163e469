-- A narrower event log (issue 11, event-log.ts): a code for the event, its states and a short detail.
-- The events written before move to events_inline, untouched; the view `events` reads both. The first
-- row of event_log (kind 0, no such code, so the view skips it) holds the last old seq: new events
-- follow the old ones.
ALTER TABLE events RENAME TO events_inline;
CREATE TABLE event_kinds (code INTEGER PRIMARY KEY, event TEXT NOT NULL, from_state TEXT, to_state TEXT NOT NULL, detail TEXT);
CREATE TABLE event_log (seq INTEGER PRIMARY KEY, item_id TEXT NOT NULL, at INTEGER NOT NULL, kind INTEGER NOT NULL, detail TEXT);
INSERT INTO event_log (seq, item_id, at, kind) SELECT MAX(seq), '', 0, 0 FROM events_inline HAVING MAX(seq) IS NOT NULL;
CREATE VIEW events AS
  SELECT seq, item_id, at, event, from_state, to_state, detail FROM events_inline
  UNION ALL
  SELECT l.seq, l.item_id, l.at, k.event, k.from_state, k.to_state, COALESCE(l.detail, k.detail)
  FROM event_log l JOIN event_kinds k ON k.code = l.kind;
