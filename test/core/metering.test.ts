import { describe, expect, it } from 'vitest';
import { meterChatAnswer, meterVideoSuccess, usableChatUsage } from '../../src/core/metering.js';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { snapshotPrice } from '../../src/core/settlement.js';

const chatSnapshot = snapshotPrice('chat', 'chat-small', BUILTIN_PRICING); // 0.15 in, 0.60 out per 1M
const videoSnapshot = snapshotPrice('video', 'video-pro', BUILTIN_PRICING);

describe('usableChatUsage: a count the gateway gave, or nothing', () => {
  it.each([
    ['missing', undefined],
    ['null', null],
    ['not an object', 'lots'],
    ['an array', [1, 2]],
    ['an empty object', {}],
    ['only total_tokens', { total_tokens: 10 }],
    ['a negative count', { prompt_tokens: -5, completion_tokens: 10 }],
    ['a numeric string', { prompt_tokens: '12', completion_tokens: 3 }],
    ['"NaN"', { prompt_tokens: 'NaN', completion_tokens: 'NaN' }],
    ['null counts', { prompt_tokens: null, completion_tokens: null }],
    ['a negative total beside good counts', { prompt_tokens: 1, completion_tokens: 1, total_tokens: -2 }],
    ['only the output count (the input side unknown)', { completion_tokens: 0 }],
    ['only the input count (the output side unknown)', { prompt_tokens: 12, total_tokens: 12 }],
  ])('%s is unusable', (_name, usage) => {
    expect(usableChatUsage(usage)).toBeUndefined();
  });

  it.each([
    ['chat counts', { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }],
    ['responses counts', { input_tokens: 10, output_tokens: 5 }],
  ])('%s are usable', (_name, usage) => {
    expect(usableChatUsage(usage)).toEqual(usage);
  });
});

describe('meterChatAnswer', () => {
  it('settles a usable usage at the snapshot price', () => {
    expect(meterChatAnswer({ usage: { prompt_tokens: 1000, completion_tokens: 500 } }, chatSnapshot, 0.01)).toEqual({
      usd: 0.00045,
      totalTokens: 1500,
      unmetered: false,
    });
  });

  it.each([
    ['no usage', { id: 'x', choices: [] }],
    ['negative usage', { usage: { prompt_tokens: -1000, completion_tokens: -1 } }],
    ['a body that is not an object', 'ok'],
    ['null', null],
  ])('%s: unmetered, booked at the reservation, never $0', (_name, body) => {
    expect(meterChatAnswer(body, chatSnapshot, 0.0024696)).toEqual({
      usd: 0.0024696,
      totalTokens: null,
      unmetered: true,
    });
  });
});

describe('meterVideoSuccess', () => {
  const base = {
    finalResolution: '4k',
    gatewayChargeUsd: undefined,
    requestedResolution: '480p' as const,
    hasReferenceVideo: false,
    snapshot: videoSnapshot,
    reservedUsd: 2.81053476,
  };

  it('settles final total_tokens at the final resolution', () => {
    expect(meterVideoSuccess({ ...base, totalTokens: 980_100 })).toEqual({
      usd: 2.81053476,
      totalTokens: 980_100,
      unmetered: false,
    });
  });

  it("with total_tokens and a higher reported charge (a group ratio the table lacks): the gateway's charge, and the drift", () => {
    const metered = meterVideoSuccess({ ...base, totalTokens: 980_100, gatewayChargeUsd: 5.62107 });
    expect(metered).toMatchObject({ usd: 5.62107, totalTokens: 980_100, unmetered: false, tableUsd: 2.81053476 });
    expect(metered.driftRatio).toBeCloseTo(2, 5);
  });

  it("with total_tokens and a lower reported charge: the table's figure, no drift", () => {
    expect(meterVideoSuccess({ ...base, totalTokens: 980_100, gatewayChargeUsd: 1 })).toEqual({
      usd: 2.81053476,
      totalTokens: 980_100,
      unmetered: false,
      tableUsd: 2.81053476,
    });
  });

  it("without total_tokens: the gateway's reported charge when it gives one", () => {
    expect(meterVideoSuccess({ ...base, totalTokens: undefined, gatewayChargeUsd: 0.5 })).toEqual({
      usd: 0.5,
      totalTokens: null,
      unmetered: false,
    });
  });

  it('without total_tokens or a charge: unmetered, booked at the reservation (its bound)', () => {
    expect(meterVideoSuccess({ ...base, totalTokens: undefined })).toEqual({
      usd: 2.81053476,
      totalTokens: null,
      unmetered: true,
    });
  });
});
