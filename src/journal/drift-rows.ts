// One mapping between a journal's `drifts` row and the group ratio it records, for both adapters.
import type { SeenDrift } from '../core/seen-drift.js';

/** The columns of a `drifts` row in order of DRIFT_COLUMNS (PostgreSQL gives a bigint as text). */
export interface DriftRow {
  account: string;
  model: string;
  item_id: string;
  ratio: number;
  table_usd: number;
  gateway_charge_usd: number;
  total_tokens: number | string;
  resolution: string | null;
  final_resolution: string | null;
  has_reference_video: boolean | number;
}

export const DRIFT_COLUMNS = [
  'account',
  'model',
  'item_id',
  'ratio',
  'table_usd',
  'gateway_charge_usd',
  'total_tokens',
  'resolution',
  'final_resolution',
  'has_reference_video',
] as const;

export function driftOfRow(row: DriftRow): SeenDrift {
  return {
    account: row.account,
    model: row.model,
    itemId: row.item_id,
    // A ratio over a table that said nothing was owed is infinite; JSON carries it as text.
    ratio: Number(row.ratio),
    tableUsd: row.table_usd,
    gatewayChargeUsd: row.gateway_charge_usd,
    totalTokens: Number(row.total_tokens),
    resolution: row.resolution,
    finalResolution: row.final_resolution,
    hasReferenceVideo: Boolean(row.has_reference_video),
  };
}

/** The values to insert, in order of DRIFT_COLUMNS. */
export function rowOfDrift(seen: SeenDrift): Array<string | number | null> {
  return [
    seen.account,
    seen.model,
    seen.itemId,
    seen.ratio,
    seen.tableUsd,
    seen.gatewayChargeUsd,
    seen.totalTokens,
    seen.resolution,
    seen.finalResolution,
    seen.hasReferenceVideo ? 1 : 0,
  ];
}
