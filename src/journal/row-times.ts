// What a report reads of a row, its kept times (item-times.ts) with it, as both adapters read it.
import type { ReportRowSource, RowTimes } from './store.js';
import type { ItemError } from './item.js';

/** The columns a report reads of a row, in this order (each adapter selects them under these names). */
export const REPORT_COLUMNS = [
  'seq',
  'id',
  'kind',
  'model',
  'state',
  'task_id',
  'resolution',
  'final_resolution',
  'has_reference_video',
  'estimate_usd',
  'actual_usd',
  'total_tokens',
  'output_path',
  'sha256',
  'bytes',
  'last_error',
  'attempts',
  'auto_resubmits',
  'gateway_charge_usd',
  'unmetered',
  'price_snapshot',
  'source_file',
  'source_line',
  'submitted_at',
  'accepted_at',
  'succeeded_at',
  'finished_at',
] as const;

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

/** Rows next to each other share their price snapshot's text: parsed once for them (a report only reads it). */
let lastSnapshot: { text: string; value: unknown } | undefined;
function snapshotOf(text: string | null): unknown {
  if (text === null) return null;
  if (lastSnapshot?.text !== text) lastSnapshot = { text, value: JSON.parse(text) };
  return lastSnapshot.value;
}
const time = (at: number | null): number | undefined => (at === null ? undefined : at);

/** One row read as REPORT_COLUMNS (an array, in that order). */
export function reportRowOf(r: readonly unknown[]): ReportRowSource {
  const times: RowTimes = {};
  const [submittedAt, acceptedAt, succeededAt, finishedAt] = (r.slice(23, 27) as Array<number | null>).map(time);
  if (submittedAt !== undefined) times.submittedAt = submittedAt;
  if (acceptedAt !== undefined) times.acceptedAt = acceptedAt;
  if (succeededAt !== undefined) times.succeededAt = succeededAt;
  if (finishedAt !== undefined) times.finishedAt = finishedAt;
  return {
    seq: Number(r[0]),
    id: r[1] as string,
    kind: r[2] as ReportRowSource['kind'],
    model: (r[3] as string | null) ?? '',
    state: r[4] as ReportRowSource['state'],
    taskId: r[5] as string | null,
    resolution: r[6] as string | null,
    finalResolution: r[7] as string | null,
    hasReferenceVideo: Number(r[8]) === 1,
    estimateUsd: r[9] as number,
    actualUsd: r[10] as number | null,
    totalTokens: r[11] === null ? null : Number(r[11]),
    outputPath: r[12] as string | null,
    sha256: r[13] as string | null,
    bytes: r[14] === null ? null : Number(r[14]),
    lastError: parse(r[15] as string | null) as ItemError | null,
    attempts: r[16] as number,
    autoResubmits: r[17] as number,
    gatewayChargeUsd: r[18] as number | null,
    unmetered: Number(r[19]) === 1,
    priceSnapshot: snapshotOf(r[20] as string | null),
    sourceFile: r[21] as string,
    sourceLine: r[22] as number,
    times,
  };
}
