-- The gateway's group ratio as the job learned it (src/core/seen-drift.ts): per account and model, the
-- settled video charged furthest above the pricing table, with what its table figure is computed from.
-- Written when seen; a write never lowers a ratio. Every run of the job starts from it.
CREATE TABLE IF NOT EXISTS drifts (
  account TEXT NOT NULL,
  model TEXT NOT NULL,
  item_id TEXT NOT NULL,
  ratio REAL NOT NULL,
  table_usd REAL NOT NULL,
  gateway_charge_usd REAL NOT NULL,
  total_tokens INTEGER NOT NULL,
  resolution TEXT,
  final_resolution TEXT,
  has_reference_video INTEGER NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (account, model)
);
