// The most the gateway can bill for one row under the spec: what a hard --budget reserves.
// The estimate (estimate.ts) is what we expect; this is what we cannot be charged more than.
//
// Video: the gateway bills the FINAL resolution (spec 8.3.3), which may be dearer than the one asked
// for, so the bound is the dearest resolution the model's price entry lists, each at the estimator's
// token count for that resolution. Chat/responses: every byte of the request body a token (a token is
// at least one byte, and the chat template's framing is shorter than the JSON around each message)
// plus the output cap times `n`. A row without an output cap has no bound: under a budget it is sent
// with DEFAULT_MAX_OUTPUT_TOKENS as its cap (withOutputCap), which this bound assumes. Likewise a video
// row that states no duration is bounded at DEFAULT_VIDEO_SECONDS and sent with it (withDuration): the
// spec names no default, and a gateway whose default is longer would bill past the bound.

import { DEFAULT_VIDEO_SECONDS, FRAMES_PER_SECOND, RESOLUTIONS, RESOLUTION_SIZE, type Resolution } from './models.js';
import { roundUsd } from './money.js';
import { DEFAULT_MAX_OUTPUT_TOKENS, nonNegativeNumber, REFERENCE_VIDEO_SECONDS, requestedSeconds } from './estimate.js';
import type { PricingTable } from './pricing.js';
import { countReferenceVideos } from './reference-video.js';
import type { ItemKind } from './states.js';

/** The request fields that cap the output of each text kind (spec 2.4, 2.7). */
const CAP_FIELDS: Readonly<Record<'chat' | 'responses', readonly string[]>> = {
  chat: ['max_tokens', 'max_completion_tokens'],
  responses: ['max_output_tokens'],
};

/** The field a default cap is added as, per kind. */
const CAP_FIELD_TO_ADD = { chat: 'max_tokens', responses: 'max_output_tokens' } as const;

/** The largest output cap the request states for its kind, or undefined when it states none. */
export function statedOutputCap(kind: 'chat' | 'responses', request: Record<string, unknown>): number | undefined {
  let cap: number | undefined;
  for (const field of CAP_FIELDS[kind]) {
    const value = nonNegativeNumber(request[field]);
    if (value !== undefined) cap = Math.max(cap ?? 0, value);
  }
  return cap;
}

/**
 * The request as it must be sent for the bound to hold: a text request that states no output cap gets
 * DEFAULT_MAX_OUTPUT_TOKENS (as `max_tokens` for chat, `max_output_tokens` for responses). The
 * manifest row and its content hash are untouched: this is a copy. `added` names the field added.
 */
export function withOutputCap(
  kind: ItemKind,
  request: Record<string, unknown>,
): { request: Record<string, unknown>; added?: string } {
  if (kind === 'video' || statedOutputCap(kind, request) !== undefined) return { request };
  const field = CAP_FIELD_TO_ADD[kind];
  return { request: { ...request, [field]: DEFAULT_MAX_OUTPUT_TOKENS }, added: field };
}

/**
 * A video request that states no usable duration (`duration`, or its alias `seconds`) gets
 * DEFAULT_VIDEO_SECONDS as `duration`, the seconds its bound was computed for. A copy, as withOutputCap's.
 */
export function withDuration(request: Record<string, unknown>): { request: Record<string, unknown>; added?: string } {
  if (nonNegativeNumber(request.duration) !== undefined || nonNegativeNumber(request.seconds) !== undefined)
    return { request };
  return { request: { ...request, duration: DEFAULT_VIDEO_SECONDS }, added: 'duration' };
}

/** The request as it must be sent for its bound to hold: text with an output cap, video with a duration. */
export function boundedRequest(
  kind: ItemKind,
  request: Record<string, unknown>,
): { request: Record<string, unknown>; added?: string } {
  return kind === 'video' ? withDuration(request) : withOutputCap(kind, request);
}

/**
 * Throws (naming the model) when the pricing table has no price for it, as the estimate does.
 * `requestBytes`, when the caller already holds the request's JSON, saves serialising it again.
 */
export function billBound(
  kind: ItemKind,
  request: Record<string, unknown>,
  pricing: PricingTable,
  requestBytes?: number,
): number {
  const model = request.model;
  if (typeof model !== 'string' || model === '') throw new Error(`cannot bound a ${kind} request without a model`);
  return kind === 'video'
    ? videoBound(model, request, pricing)
    : chatBound(kind, model, request, pricing, requestBytes);
}

export function videoBound(model: string, request: Record<string, unknown>, pricing: PricingTable): number {
  const entry = pricing.video[model];
  if (entry === undefined) throw new Error(`no price for video model '${model}' in the pricing table`);
  const referenceVideos = countReferenceVideos(request);
  const seconds = requestedSeconds(request) + referenceVideos * REFERENCE_VIDEO_SECONDS;
  // The spec's schema also lets a request ask for several videos (`n`), a frame rate above the
  // estimator's 24 and a frame larger than the resolution's: the provider's final total_tokens may
  // follow any of them, so the bound does.
  const videos = Math.max(1, Math.floor(nonNegativeNumber(request.n) ?? 1));
  const fps = Math.max(FRAMES_PER_SECOND, nonNegativeNumber(request.fps) ?? 0);
  const width = nonNegativeNumber(request.width);
  const height = nonNegativeNumber(request.height);
  const askedPixels = width !== undefined && height !== undefined ? width * height : 0;
  let most = 0;
  for (const resolution of RESOLUTIONS) {
    const rates = entry[resolution as Resolution];
    if (rates === undefined) continue;
    const rate = referenceVideos > 0 ? rates.ref : rates.noref;
    const frame = RESOLUTION_SIZE[resolution];
    const pixels = Math.max(frame.width * frame.height, askedPixels);
    const tokens = Math.ceil((pixels * (fps * seconds + 1)) / 1024) * videos;
    most = Math.max(most, (tokens / 1e6) * rate * pricing.group_ratio);
  }
  return roundUsd(most);
}

function chatBound(
  kind: 'chat' | 'responses',
  model: string,
  request: Record<string, unknown>,
  pricing: PricingTable,
  requestBytes?: number,
): number {
  const rates = pricing.chat[model];
  if (rates === undefined) throw new Error(`no price for ${kind} model '${model}' in the pricing table`);
  const inputTokens = requestBytes ?? Buffer.byteLength(JSON.stringify(request), 'utf8');
  const outputTokens =
    (statedOutputCap(kind, request) ?? DEFAULT_MAX_OUTPUT_TOKENS) * (nonNegativeNumber(request.n) ?? 1);
  return roundUsd(
    ((inputTokens * rates.input_per_1m + outputTokens * rates.output_per_1m) / 1e6) * pricing.group_ratio,
  );
}
