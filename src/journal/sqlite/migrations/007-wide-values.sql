-- Fewer bytes per transition (issue 11): a transition rewrites the whole page of its row, so the wide
-- values leave the row (wide-values.ts): the request and the response are stored once in item_requests
-- and item_answers, a price snapshot or output path once per distinct text in item_texts. Rows written
-- before keep their inline values.
CREATE TABLE item_requests (seq INTEGER PRIMARY KEY, request TEXT NOT NULL);
CREATE TABLE item_answers (seq INTEGER PRIMARY KEY, response TEXT NOT NULL);
CREATE TABLE item_texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
ALTER TABLE items ADD COLUMN price_ref INTEGER;
ALTER TABLE items ADD COLUMN output_ref INTEGER;
CREATE TRIGGER items_inline_request AFTER UPDATE OF request ON items
  BEGIN DELETE FROM item_requests WHERE seq = NEW.seq; END;
CREATE TRIGGER items_inline_response AFTER UPDATE OF response ON items
  BEGIN DELETE FROM item_answers WHERE seq = NEW.seq; END;
CREATE TRIGGER items_inline_price AFTER UPDATE OF price_snapshot ON items WHEN NEW.price_ref IS NOT NULL
  BEGIN UPDATE items SET price_ref = NULL WHERE seq = NEW.seq; END;
CREATE TRIGGER items_inline_output AFTER UPDATE OF output_path ON items WHEN NEW.output_ref IS NOT NULL
  BEGIN UPDATE items SET output_ref = NULL WHERE seq = NEW.seq; END;
CREATE TRIGGER items_deleted_answer AFTER DELETE ON items
  BEGIN DELETE FROM item_requests WHERE seq = OLD.seq; DELETE FROM item_answers WHERE seq = OLD.seq; END;
