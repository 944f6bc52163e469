// The most the gateway can bill for one row under the spec: what a hard --budget reserves.
// The estimate (estimate.ts) is what we expect; this is what we cannot be charged more than.
//
// Video: the gateway bills the FINAL resolution (spec 8.3.3), which may be dearer than the one asked
// for, so the bound is the dearest resolution the model's price entry lists, each at the estimator's
// token count for that resolution. Chat/responses: every byte of the request body a token (a token is
// at least one byte, and the chat template's framing is shorter than the JSON around each message)
// plus the output cap times `n`. A row without an output cap has no bound: under a budget it is sent
// with DEFAULT_MAX_OUTPUT_TOKENS as its cap (withOutputCap), which this bound assumes.

import { RESOLUTIONS, type Resolution } from './models.js';
import { roundUsd } from './money.js';
import { DEFAULT_MAX_OUTPUT_TOKENS, nonNegativeNumber, REFERENCE_VIDEO_SECONDS, requestedSeconds, videoTokens } from './estimate.js';
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
export function withOutputCap(kind: ItemKind, request: Record<string, unknown>): { request: Record<string, unknown>; added?: string } {
  if (kind === 'video' || statedOutputCap(kind, request) !== undefined) return { request };
  const field = CAP_FIELD_TO_ADD[kind];
  return { request: { ...request, [field]: DEFAULT_MAX_OUTPUT_TOKENS }, added: field };
}

/** Throws (naming the model) when the pricing table has no price for it, as the estimate does. */
export function billBound(kind: ItemKind, request: Record<string, unknown>, pricing: PricingTable): number {
  const model = request.model;
  if (typeof model !== 'string' || model === '') throw new Error(`cannot bound a ${kind} request without a model`);
  return kind === 'video' ? videoBound(model, request, pricing) : chatBound(kind, model, request, pricing);
}

export function videoBound(model: string, request: Record<string, unknown>, pricing: PricingTable): number {
  const entry = pricing.video[model];
  if (entry === undefined) throw new Error(`no price for video model '${model}' in the pricing table`);
  const referenceVideos = countReferenceVideos(request);
  const seconds = requestedSeconds(request) + referenceVideos * REFERENCE_VIDEO_SECONDS;
  let most = 0;
  for (const resolution of RESOLUTIONS) {
    const rates = entry[resolution as Resolution];
    if (rates === undefined) continue;
    const rate = referenceVideos > 0 ? rates.ref : rates.noref;
    most = Math.max(most, (videoTokens(resolution, seconds) / 1e6) * rate * pricing.group_ratio);
  }
  return roundUsd(most);
}

function chatBound(kind: 'chat' | 'responses', model: string, request: Record<string, unknown>, pricing: PricingTable): number {
  const rates = pricing.chat[model];
  if (rates === undefined) throw new Error(`no price for ${kind} model '${model}' in the pricing table`);
  const inputTokens = Buffer.byteLength(JSON.stringify(request), 'utf8');
  const outputTokens = (statedOutputCap(kind, request) ?? DEFAULT_MAX_OUTPUT_TOKENS) * (nonNegativeNumber(request.n) ?? 1);
  return roundUsd(((inputTokens * rates.input_per_1m + outputTokens * rates.output_per_1m) / 1e6) * pricing.group_ratio);
}
