// The simulator's own live price list: a copy of spec 8.2 and the contract's chat rates. It is NOT
// imported from src/core/pricing.ts, so a typo in one table cannot hide in the other.

import type { Resolution } from '../core/models.js';
import type { ChatPrice } from './tokens.js';

export interface VideoPrice {
  ref: number;
  noref: number;
}

/** USD per 1,000,000 final total_tokens (spec 8.2). */
function specVideoPrices(): Record<string, Partial<Record<Resolution, VideoPrice>>> {
  return {
    'video-fast': {
      '480p': { ref: 2.2647, noref: 3.8088 },
      '720p': { ref: 2.2647, noref: 3.8088 },
      '1080p': { ref: 2.5221, noref: 4.3235 },
    },
    'video-mini': {
      '480p': { ref: 1.0294, noref: 1.6912 },
      '720p': { ref: 1.0294, noref: 1.6912 },
      '1080p': { ref: 1.1397, noref: 1.875 },
    },
    'video-pro': {
      '480p': { ref: 3.0882, noref: 5.0735 },
      '720p': { ref: 3.0882, noref: 5.0735 },
      '1080p': { ref: 3.4191, noref: 5.625 },
      '4k': { ref: 1.7647, noref: 2.8676 },
    },
    'video-pro-2.5': {
      '720p': { ref: 4.9412, noref: 8.2353 },
      '1080p': { ref: 5.4706, noref: 9.0588 },
    },
  };
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
