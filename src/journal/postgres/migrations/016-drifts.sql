-- The gateway's group ratio as each job learned it (src/core/seen-drift.ts): per job, account and model,
-- the settled video charged furthest above the pricing table, with what its table figure is computed from.
-- Written when seen; a write never lowers a ratio. Every runner of the job reads it with the job's money.
CREATE TABLE IF NOT EXISTS drifts (
  job_id bigint NOT NULL,
  account text NOT NULL,
  model text NOT NULL,
  item_id text NOT NULL,
  ratio double precision NOT NULL,
  table_usd double precision NOT NULL,
  gateway_charge_usd double precision NOT NULL,
  total_tokens bigint NOT NULL,
  resolution text,
  final_resolution text,
  has_reference_video boolean NOT NULL,
  seen_at bigint NOT NULL,
  PRIMARY KEY (job_id, account, model)
);
