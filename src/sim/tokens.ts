// The simulator's token and money arithmetic (spec 8.2, 8.3; issue 2). Kept apart from src/core on
// purpose: the runner's estimator and this gateway are checked against each other, not shared.

import type { Resolution } from '../core/models.js';

/** Frame sizes of the token formula (issue 2). */
export const FRAME_SIZE: Readonly<Record<Resolution, { width: number; height: number }>> = {
  '480p': { width: 854, height: 480 },
  '720p': { width: 1280, height: 720 },
  '1080p': { width: 1920, height: 1080 },
  '4k': { width: 3840, height: 2160 },
};

export const FRAMES_PER_SECOND = 24;
export const DEFAULT_SECONDS = 5;
/**
 * The gateway's estimator counts every reference video as this many seconds more of output at the
 * requested resolution when it reserves at submission. Settlement does not count them.
 */
export const REFERENCE_VIDEO_SECONDS = 5;
/** new-api's quota unit: 500,000 quota = 1 USD. */
export const QUOTA_PER_USD = 500_000;

/** floor(width * height * (24 * seconds + 1) / 1024). */
export function videoTokens(resolution: Resolution, seconds: number): number {
  const { width, height } = FRAME_SIZE[resolution];
  return Math.floor((width * height * (FRAMES_PER_SECOND * seconds + 1)) / 1024);
}

/** The reservation's tokens: frames = 24 * (seconds + 5 * referenceVideos) + 1, then as videoTokens. */
export function reservationTokens(resolution: Resolution, seconds: number, referenceVideos: number): number {
  return videoTokens(resolution, seconds + REFERENCE_VIDEO_SECONDS * referenceVideos);
}

/** tokens / 1e6 * rate * groupRatio, in USD (not rounded: the ledger keeps exact values). */
export function tokensUsd(tokens: number, ratePerMillion: number, groupRatio: number): number {
  return (tokens / 1_000_000) * ratePerMillion * groupRatio;
}

export function usdToQuota(usd: number): number {
  return Math.round(usd * QUOTA_PER_USD);
}

/** Chat and responses usage: prompt tokens are ceil(characters / 4) of all message text. */
export function promptTokensForChars(chars: number): number {
  return Math.ceil(chars / 4);
}

export function chatUsd(promptTokens: number, completionTokens: number, rate: ChatPrice, groupRatio: number): number {
  return ((promptTokens * rate.inputPer1m + completionTokens * rate.outputPer1m) / 1_000_000) * groupRatio;
}

export interface ChatPrice {
  inputPer1m: number;
  outputPer1m: number;
}
