// Settlement: the actual cost of a finished item, from what the gateway reported and the prices
// snapshotted when it was submitted (spec 8.3: later price edits do not change items in flight).

import { normaliseResolution, type Resolution } from './models.js';
import { roundUsd } from './money.js';
import type { ChatRate, PricingTable, VideoRate } from './pricing.js';
import type { ItemKind } from './states.js';

/** Taken at submission and stored on the item (plain JSON). */
export interface PriceSnapshot {
  groupRatio: number;
  /** The model's whole entry: the final resolution may differ from the requested one. */
  video?: Partial<Record<Resolution, VideoRate>>;
  chat?: ChatRate;
}

/** Copies the model's prices out of the table; throws when the table has none for it. */
export function snapshotPrice(kind: ItemKind, model: string, pricing: PricingTable): PriceSnapshot {
  if (kind === 'video') {
    const entry = pricing.video[model];
    if (entry === undefined) throw new Error(`no price for video model '${model}' in the pricing table`);
    const video: Partial<Record<Resolution, VideoRate>> = {};
    for (const [resolution, rate] of Object.entries(entry) as [Resolution, VideoRate][]) {
      video[resolution] = { ref: rate.ref, noref: rate.noref };
    }
    return { groupRatio: pricing.group_ratio, video };
  }
  const rate = pricing.chat[model];
  if (rate === undefined) throw new Error(`no price for ${kind} model '${model}' in the pricing table`);
  return {
    groupRatio: pricing.group_ratio,
    chat: { input_per_1m: rate.input_per_1m, output_per_1m: rate.output_per_1m },
  };
}

export interface VideoSettlement {
  usd: number;
  /** The resolution the gateway produced (its answer normalised), else the requested one. */
  resolution: Resolution;
  /** USD per 1e6 tokens applied. */
  rate: number;
  /** The resolution whose rate was applied: differs from `resolution` only when `fallback` is true. */
  rateResolution: Resolution;
  /** True when the snapshot had no rate for `resolution` and the requested resolution's rate was used. */
  fallback: boolean;
}

/**
 * Video cost = total_tokens / 1e6 x rate(final resolution, reference video) x group ratio. The gateway
 * bills what it produced; when it names no (or an unknown) resolution we assume the one we asked for.
 */
export function settleVideo(input: {
  totalTokens: number;
  finalResolution: string | undefined;
  requestedResolution: Resolution;
  hasReferenceVideo: boolean;
  snapshot: PriceSnapshot;
}): VideoSettlement {
  const { totalTokens, requestedResolution, hasReferenceVideo, snapshot } = input;
  if (!Number.isFinite(totalTokens) || totalTokens < 0) {
    throw new RangeError(`total_tokens must be a number >= 0, got ${totalTokens}`);
  }
  const resolution = normaliseResolution(input.finalResolution) ?? requestedResolution;
  const pick = (r: Resolution): number | undefined => {
    const entry = snapshot.video?.[r];
    return entry === undefined ? undefined : hasReferenceVideo ? entry.ref : entry.noref;
  };
  let rateResolution = resolution;
  let rate = pick(resolution);
  if (rate === undefined) {
    rateResolution = requestedResolution;
    rate = pick(requestedResolution);
  }
  if (rate === undefined) {
    throw new Error(`the price snapshot has no video rate for ${resolution} or ${requestedResolution}`);
  }
  const usd = roundUsd((totalTokens / 1e6) * rate * snapshot.groupRatio);
  return { usd, resolution, rate, rateResolution, fallback: rateResolution !== resolution };
}

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
}

const tokenCount = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Chat Completions usage (prompt/completion) or Responses usage (input/output); no usage is 0 tokens.
 * A usage that has only `total_tokens` is charged at the dearer of the two rates, so spend is not understated.
 */
export function settleChat(
  usage: ChatUsage | undefined,
  snapshot: PriceSnapshot,
): { usd: number; inputTokens: number; outputTokens: number } {
  const rate = snapshot.chat;
  if (rate === undefined) throw new Error('the price snapshot has no chat rate');
  let inputTokens = tokenCount(usage?.prompt_tokens) ?? tokenCount(usage?.input_tokens);
  let outputTokens = tokenCount(usage?.completion_tokens) ?? tokenCount(usage?.output_tokens);
  if (inputTokens === undefined && outputTokens === undefined) {
    const total = tokenCount(usage?.total_tokens);
    if (rate.output_per_1m >= rate.input_per_1m) outputTokens = total;
    else inputTokens = total;
  }
  inputTokens ??= 0;
  outputTokens ??= 0;
  const usd = roundUsd(
    ((inputTokens * rate.input_per_1m + outputTokens * rate.output_per_1m) / 1e6) * snapshot.groupRatio,
  );
  return { usd, inputTokens, outputTokens };
}

/** What a settlement cost above its reservation: max(0, actual - estimate). */
export function overshoot(estimateUsd: number, actualUsd: number): number {
  return roundUsd(Math.max(0, actualUsd - estimateUsd));
}
