import { describe, expect, it } from 'vitest';
import { modelCatalog } from '../../src/core/model-catalog.js';
import type { PricingTable } from '../../src/core/pricing.js';

const PRICING: PricingTable = {
  group_ratio: 1,
  video: {
    'video-pro': { '4k': { ref: 1, noref: 2 }, '480p': { ref: 1, noref: 2 } },
    'video-mini': { '720p': { ref: 1, noref: 2 } },
  },
  chat: { 'chat-small': { input_per_1m: 1, output_per_1m: 2 } },
};

describe('modelCatalog', () => {
  it("without the gateway's list: the pricing table's models, video resolutions in the spec's order", () => {
    expect(modelCatalog(PRICING, undefined)).toEqual([
      {
        id: 'video-mini',
        kind: 'video',
        priced: true,
        onGateway: null,
        resolutions: ['720p'],
        durations: { minSeconds: 0, maxSeconds: 3600, defaultSeconds: 5 },
      },
      {
        id: 'video-pro',
        kind: 'video',
        priced: true,
        onGateway: null,
        resolutions: ['480p', '4k'],
        durations: { minSeconds: 0, maxSeconds: 3600, defaultSeconds: 5 },
      },
      { id: 'chat-small', kind: 'chat', priced: true, onGateway: null, resolutions: [], durations: null },
    ]);
  });

  it("with the gateway's list: which priced models it lists, and the models it lists that have no price", () => {
    const catalog = modelCatalog(PRICING, ['chat-small', 'video-pro', 'zeta-video', 'alpha-chat', 'zeta-video']);
    expect(catalog.map((m) => [m.id, m.kind, m.priced, m.onGateway])).toEqual([
      ['video-mini', 'video', true, false],
      ['video-pro', 'video', true, true],
      ['chat-small', 'chat', true, true],
      ['alpha-chat', 'unpriced', false, true],
      ['zeta-video', 'unpriced', false, true],
    ]);
  });
});
