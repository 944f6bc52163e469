// Cost estimates, computed before a row is sent: the amount the budget reserves for it.
// Video follows the gateway's own estimator (spec 8.3.1); chat and responses are an upper bound.

import {
  billingResolution,
  DEFAULT_VIDEO_SECONDS,
  FRAMES_PER_SECOND,
  RESOLUTION_SIZE,
  type Resolution,
} from './models.js';
import { roundUsd } from './money.js';
import { chatRate, videoRate, type PricingTable } from './pricing.js';
import { countReferenceVideos } from './reference-video.js';
import type { ItemKind } from './states.js';

/** The gateway's estimator counts each reference video as this many seconds more of output. */
export const REFERENCE_VIDEO_SECONDS = 5;
/** The output bound assumed for a chat/responses row that states no maximum. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** floor(width x height x frames / 1024), frames = 24 x seconds + 1: a 5 s 720p clip is 108,900 tokens. */
export function videoTokens(resolution: Resolution, seconds: number): number {
  const { width, height } = RESOLUTION_SIZE[resolution];
  return Math.floor((width * height * (FRAMES_PER_SECOND * seconds + 1)) / 1024);
}

/** A finite number >= 0 from a number or a numeric string; undefined for anything else (blank, "abc", -1). */
export function nonNegativeNumber(value: unknown): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*\+?(\d+(\.\d*)?|\.\d+)\s*$/.test(value)) n = Number(value);
  return n !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * `duration`, else its alias `seconds`, else 5 (numeric strings parsed). A value that is not a number
 * >= 0 is passed over: the manifest validator reports it, and the gateway would reject it at no cost.
 */
export function requestedSeconds(request: Record<string, unknown>): number {
  return nonNegativeNumber(request.duration) ?? nonNegativeNumber(request.seconds) ?? DEFAULT_VIDEO_SECONDS;
}

export interface VideoEstimate {
  kind: 'video';
  model: string;
  resolution: Resolution;
  seconds: number;
  hasReferenceVideo: boolean;
  referenceVideos: number;
  tokens: number;
  rate: number;
  groupRatio: number;
  usd: number;
}

export interface ChatEstimate {
  kind: 'chat' | 'responses';
  model: string;
  inputTokens: number;
  outputTokens: number;
  inputRate: number;
  outputRate: number;
  groupRatio: number;
  usd: number;
}

export type Estimate = VideoEstimate | ChatEstimate;

/** Throws (naming the model, and the resolution for video) when the pricing table lacks the price. */
export function estimateRequest(kind: ItemKind, request: Record<string, unknown>, pricing: PricingTable): Estimate {
  const model = request.model;
  if (typeof model !== 'string' || model === '') throw new Error(`cannot estimate a ${kind} request without a model`);
  return kind === 'video' ? estimateVideo(model, request, pricing) : estimateChat(kind, model, request, pricing);
}

function estimateVideo(model: string, request: Record<string, unknown>, pricing: PricingTable): VideoEstimate {
  const resolution = billingResolution(request.resolution);
  const referenceVideos = countReferenceVideos(request);
  const hasReferenceVideo = referenceVideos > 0;
  const rate = videoRate(pricing, model, resolution, hasReferenceVideo);
  if (rate === undefined) {
    throw new Error(`no price for video model '${model}' at resolution ${resolution} in the pricing table`);
  }
  const seconds = requestedSeconds(request);
  const tokens = videoTokens(resolution, seconds + referenceVideos * REFERENCE_VIDEO_SECONDS);
  const groupRatio = pricing.group_ratio;
  const usd = roundUsd((tokens / 1e6) * rate * groupRatio);
  return {
    kind: 'video',
    model,
    resolution,
    seconds,
    hasReferenceVideo,
    referenceVideos,
    tokens,
    rate,
    groupRatio,
    usd,
  };
}

function estimateChat(
  kind: 'chat' | 'responses',
  model: string,
  request: Record<string, unknown>,
  pricing: PricingTable,
): ChatEstimate {
  const rates = chatRate(pricing, model);
  if (rates === undefined) throw new Error(`no price for ${kind} model '${model}' in the pricing table`);
  const inputTokens = promptBytes(request);
  const maxOutput =
    nonNegativeNumber(request.max_completion_tokens) ??
    nonNegativeNumber(request.max_tokens) ??
    nonNegativeNumber(request.max_output_tokens) ??
    DEFAULT_MAX_OUTPUT_TOKENS;
  const outputTokens = maxOutput * (nonNegativeNumber(request.n) ?? 1);
  const groupRatio = pricing.group_ratio;
  const usd = roundUsd(((inputTokens * rates.input_per_1m + outputTokens * rates.output_per_1m) / 1e6) * groupRatio);
  return {
    kind,
    model,
    inputTokens,
    outputTokens,
    inputRate: rates.input_per_1m,
    outputRate: rates.output_per_1m,
    groupRatio,
    usd,
  };
}

/**
 * UTF-8 bytes of all the text a request sends: a token is at least one byte, so this bounds the
 * prompt tokens without a tokenizer. Counts message contents and text parts, `input`, `instructions`,
 * tool calls and tool outputs carried in the conversation, and the JSON of `tools`.
 */
export function promptBytes(request: Record<string, unknown>): number {
  const texts: string[] = [];
  collectText(request.messages, texts);
  collectText(request.input, texts);
  collectText(request.instructions, texts);
  if (Array.isArray(request.tools) && request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  return texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
}

function collectText(value: unknown, into: string[]): void {
  if (typeof value === 'string') {
    into.push(value);
  } else if (Array.isArray(value)) {
    for (const element of value) collectText(element, into);
  } else if (value !== null && typeof value === 'object') {
    const part = value as Record<string, unknown>;
    collectText(part.content, into); // a message, or a Responses input item
    collectText(part.text, into); // a text / input_text / output_text part
    collectText(part.output, into); // a function_call_output item
    collectText(part.arguments, into); // a function_call item
    if (Array.isArray(part.tool_calls)) into.push(JSON.stringify(part.tool_calls));
  }
}
