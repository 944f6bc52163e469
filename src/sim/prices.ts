// The simulator's own live price list: a copy of spec 8.2 and the contract's chat rates. It is NOT
// imported from src/core/pricing.ts, so a typo in one table cannot hide in the other.

import type { Resolution } from '../core/models.js';
import type { ChatPrice } from './tokens.js';

export interface VideoPrice {
  ref: number;
  noref: number;
}

/**
 * Spec 8.2's rows as it writes them (480p and 720p share a row): the model, its resolutions, and USD per
 * 1,000,000 final total_tokens with and without a reference video.
 */
const SPEC_VIDEO_PRICES: ReadonlyArray<readonly [string, readonly Resolution[], number, number]> = [
  ['video-fast', ['480p', '720p'], 2.2647, 3.8088],
  ['video-fast', ['1080p'], 2.5221, 4.3235],
  ['video-mini', ['480p', '720p'], 1.0294, 1.6912],
  ['video-mini', ['1080p'], 1.1397, 1.875],
  ['video-pro', ['480p', '720p'], 3.0882, 5.0735],
  ['video-pro', ['1080p'], 3.4191, 5.625],
  ['video-pro', ['4k'], 1.7647, 2.8676],
  ['video-pro-2.5', ['720p'], 4.9412, 8.2353],
  ['video-pro-2.5', ['1080p'], 5.4706, 9.0588],
];

/** A fresh copy each time: a simulator's price edits stay its own. */
function specVideoPrices(): Record<string, Partial<Record<Resolution, VideoPrice>>> {
  const prices: Record<string, Partial<Record<Resolution, VideoPrice>>> = {};
  for (const [model, resolutions, ref, noref] of SPEC_VIDEO_PRICES)
    for (const resolution of resolutions) (prices[model] ??= {})[resolution] = { ref, noref };
  return prices;
}

/** USD per 1,000,000 tokens (runner contract, simulator section). */
const CHAT_PRICES: Readonly<Record<string, ChatPrice>> = {
  'chat-small': { inputPer1m: 0.15, outputPer1m: 0.6 },
  'chat-large': { inputPer1m: 2.5, outputPer1m: 10 },
};

/** A task's frozen prices: USD per 1M tokens for each resolution of its model, for its reference flag. */
export type RateSnapshot = Partial<Record<Resolution, number>>;

export class PriceList {
  private readonly video = specVideoPrices();
  groupRatio: number;

  constructor(groupRatio: number) {
    this.groupRatio = groupRatio;
  }

  videoRate(model: string, resolution: Resolution, hasReferenceVideo: boolean): number | undefined {
    const price = this.video[model]?.[resolution];
    return price === undefined ? undefined : hasReferenceVideo ? price.ref : price.noref;
  }

  /** Copies the model's current rates, so later edits do not reach a task in flight (spec 8.3.2). */
  snapshot(model: string, hasReferenceVideo: boolean): RateSnapshot {
    const out: RateSnapshot = {};
    for (const [resolution, price] of Object.entries(this.video[model] ?? {}) as Array<[Resolution, VideoPrice]>) {
      out[resolution] = hasReferenceVideo ? price.ref : price.noref;
    }
    return out;
  }

  setVideoPrice(model: string, resolution: Resolution, price: VideoPrice): void {
    const table = (this.video[model] ??= {});
    table[resolution] = { ref: price.ref, noref: price.noref };
  }

  chatPrice(model: string): ChatPrice | undefined {
    return CHAT_PRICES[model];
  }
}
