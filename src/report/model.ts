// The reconciliation: estimate vs actual per item, per model and resolution, and in total.
import { checkSettledVideo } from '../core/charge-check.js';
import { roundUsd } from '../core/money.js';
import { overshoot, type PriceSnapshot } from '../core/settlement.js';
import type { ItemState } from '../core/states.js';
import type { ItemError, JournalReports, JournalRunReads, ReportRowSource } from '../journal/index.js';
import type { ItemTiming, Timeline } from './timeline.js';
import { startForecastOf } from '../core/start-forecast.js';
import { reportForecast, type ReportForecast } from './start-forecast.js';

export interface ReportTotals {
  items: number;
  by_state: Partial<Record<ItemState, number>>;
  estimated_usd: number;
  actual_usd: number;
  /** actual - estimate over the settled items (those with an actual charge). */
  delta_usd: number;
  budget_usd: number | null;
  reserved_usd: number;
  settled_items: number;
  settled_estimated_usd: number;
  overshoot_usd: number;
  /** What the gateway itself reported, per video task (none per chat or responses request); null: none reported. */
  gateway_charge_usd: number | null;
  /** The rows gateway_charge_usd sums: video tasks whose charge the gateway reported. */
  gateway_charged_items: number;
  /** Items settled without a usable count from the gateway, booked at their bound. */
  unmetered_items: number;
  /** The job's first submission and last transition (ISO; null: nothing sent), from the event log. */
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
}

export interface ReportGroup {
  model: string;
  resolution: string | null;
  items: number;
  settled_items: number;
  estimated_usd: number;
  actual_usd: number;
  delta_usd: number;
  total_tokens: number;
}

export interface ReportItem {
  id: string;
  kind: string;
  model: string | null;
  state: ItemState;
  task_id: string | null;
  resolution: string | null;
  final_resolution: string | null;
  has_reference_video: boolean;
  estimated_usd: number;
  actual_usd: number | null;
  total_tokens: number | null;
  output: string | null;
  sha256: string | null;
  bytes: number | null;
  error: ItemError | null;
  attempts: number;
  auto_resubmits: number;
  gateway_charge_usd: number | null;
  overshoot_usd: number;
  /** True when the gateway gave no usable count (usage, total_tokens): actual_usd is the bound reserved for it. */
  unmetered: boolean;
  /** What the pricing table says the row cost, where the gateway reported its own charge beside it; else null. */
  table_usd: number | null;
  /** True when the gateway charged more than the pricing table says (actual_usd is the gateway's charge). */
  mispriced: boolean;
  source: string;
  /** Its last attempt, from the event log (ISO; null: not reached): sent, accepted (video), succeeded, ended. */
  submitted_at: string | null;
  accepted_at: string | null;
  succeeded_at: string | null;
  /** When it reached its terminal state (downloaded, failed, rejected); null while it is not in one. */
  finished_at: string | null;
  /**
   * The row's own time: a chat or responses request's from submission to its answer (succeeded_at, or
   * finished_at for one refused), not to the results file's write; a video's from submission to finished_at.
   */
  duration_ms: number | null;
}

export interface ReportHeader {
  job: string;
  totals: ReportTotals;
  by_model: ReportGroup[];
  /** The forecast the job started with against each model's bill; null when the job keeps none. */
  forecast: ReportForecast | null;
}

/** The ISO text of a time; a report's rows share their seconds, so each second is formatted once. */
let isoSecond = NaN;
let isoPrefix = '';
const iso = (ms: number | undefined): string | null => {
  if (ms === undefined) return null;
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond || ms < 0) {
    const text = new Date(ms).toISOString();
    if (ms < 0 || text.length !== 24) return text;
    isoSecond = second;
    isoPrefix = text.slice(0, 20);
  }
  return `${isoPrefix}${String(ms - second * 1000).padStart(3, '0')}Z`;
};

/** What reportItem reads of a row. */
export type ReportSource = Omit<ReportRowSource, 'times'>;

export function reportItem(item: ReportSource, timing: ItemTiming = {}): ReportItem {
  const isVideo = item.kind === 'video';
  return {
    id: item.id,
    kind: item.kind,
    model: item.model || null,
    state: item.state,
    task_id: item.taskId,
    resolution: isVideo ? item.resolution : null,
    final_resolution: isVideo ? (item.finalResolution ?? (item.actualUsd !== null ? item.resolution : null)) : null,
    has_reference_video: item.hasReferenceVideo,
    estimated_usd: item.estimateUsd,
    actual_usd: item.actualUsd,
    total_tokens: item.totalTokens,
    output: item.outputPath,
    sha256: item.sha256,
    bytes: item.bytes,
    error: item.lastError,
    attempts: item.attempts,
    auto_resubmits: item.autoResubmits,
    gateway_charge_usd: item.gatewayChargeUsd,
    overshoot_usd: item.actualUsd === null ? 0 : overshoot(item.estimateUsd, item.actualUsd),
    unmetered: item.unmetered,
    ...tablePrice(item),
    source: `${item.sourceFile}:${item.sourceLine}`,
    submitted_at: iso(timing.submittedAt),
    accepted_at: iso(timing.acceptedAt),
    succeeded_at: iso(timing.succeededAt),
    finished_at: iso(timing.finishedAt),
    duration_ms: rowDuration(isVideo, timing),
  };
}

/** A text row is done when answered (its line reaches results.jsonl later, in a batch); a video when stored. */
function rowDuration(isVideo: boolean, timing: ItemTiming): number | null {
  const end = isVideo ? timing.finishedAt : (timing.succeededAt ?? timing.finishedAt);
  return end !== undefined && timing.submittedAt !== undefined ? end - timing.submittedAt : null;
}

/**
 * The table's figure for a settled video the gateway also priced (the rule it was settled by), and whether the gateway
 * charged more.
 */
function tablePrice(item: ReportSource): { table_usd: number | null; mispriced: boolean } {
  const check =
    item.kind === 'video' && item.actualUsd !== null
      ? checkSettledVideo(item, item.priceSnapshot as PriceSnapshot | null)
      : undefined;
  return check === undefined
    ? { table_usd: null, mispriced: false }
    : { table_usd: check.tableUsd, mispriced: check.driftRatio !== undefined };
}

/** `timeline` (from the event log) gives the job's start, end and duration; without it they are null. */
export async function reportHeader(
  journal: JournalRunReads & JournalReports,
  jobName: string,
  budgetUsd: number | null,
  timeline?: Pick<Timeline, 'startedAt' | 'endedAt'>,
): Promise<ReportHeader> {
  const counts = await journal.counts();
  const byState = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)) as Partial<
    Record<ItemState, number>
  >;
  const { total: sums, groups } = await journal.reportSums();
  const actual = roundUsd(sums.actual ?? 0);
  const settledEstimate = roundUsd(sums.settled_estimated ?? 0);
  const totals: ReportTotals = {
    items: sums.items,
    by_state: byState,
    estimated_usd: roundUsd(sums.estimated ?? 0),
    actual_usd: actual,
    delta_usd: roundUsd(actual - settledEstimate),
    budget_usd: budgetUsd,
    reserved_usd: roundUsd(sums.reserved ?? 0),
    settled_items: sums.settled ?? 0,
    settled_estimated_usd: settledEstimate,
    overshoot_usd: roundUsd(sums.over ?? 0),
    gateway_charge_usd: sums.gateway_n ? roundUsd(sums.gateway ?? 0) : null,
    gateway_charged_items: sums.gateway_n,
    unmetered_items: sums.unmetered ?? 0,
    started_at: iso(timeline?.startedAt),
    ended_at: iso(timeline?.endedAt),
    duration_ms:
      timeline?.startedAt !== undefined && timeline.endedAt !== undefined
        ? timeline.endedAt - timeline.startedAt
        : null,
  };
  const by_model = groups.map((g) => {
    const gActual = roundUsd(g.actual ?? 0);
    return {
      model: g.model,
      resolution: g.resolution,
      items: g.items,
      settled_items: g.settled ?? 0,
      estimated_usd: roundUsd(g.estimated ?? 0),
      actual_usd: gActual,
      delta_usd: roundUsd(gActual - (g.settled_estimated ?? 0)),
      total_tokens: g.tokens ?? 0,
    };
  });
  const actualByModel = new Map<string, number>();
  for (const g of by_model) actualByModel.set(g.model, (actualByModel.get(g.model) ?? 0) + g.actual_usd);
  const forecast = reportForecast(startForecastOf((await journal.getJob())?.options), actualByModel);
  return { job: jobName, totals, by_model, forecast };
}
