import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING, type PricingTable } from '../../src/core/pricing.js';
import { overshoot, settleChat, settleVideo, snapshotPrice } from '../../src/core/settlement.js';
import { formatUsd, roundUsd } from '../../src/core/money.js';

// Expected amounts are worked out by hand: total_tokens / 1e6 * rate (spec 8.2) * group ratio.

const fast = snapshotPrice('video', 'video-fast', BUILTIN_PRICING);
const small = snapshotPrice('chat', 'chat-small', BUILTIN_PRICING);

describe('snapshotPrice', () => {
  it("copies the model's whole video entry and the group ratio", () => {
    expect(fast).toEqual({
      groupRatio: 1,
      video: {
        '480p': { ref: 2.2647, noref: 3.8088 },
        '720p': { ref: 2.2647, noref: 3.8088 },
        '1080p': { ref: 2.5221, noref: 4.3235 },
      },
    });
    expect(small).toEqual({ groupRatio: 1, chat: { input_per_1m: 0.15, output_per_1m: 0.6 } });
  });

  it('is unaffected by later edits of the pricing table', () => {
    const pricing: PricingTable = structuredClone(BUILTIN_PRICING);
    const snapshot = snapshotPrice('video', 'video-fast', pricing);
    pricing.video['video-fast']!['720p']!.noref = 99;
    pricing.group_ratio = 3;
    expect(snapshot.video?.['720p']?.noref).toBe(3.8088);
    expect(snapshot.groupRatio).toBe(1);
  });

  it('survives a JSON round trip (it is stored on the item)', () => {
    expect(JSON.parse(JSON.stringify(fast))).toEqual(fast);
  });

  it('throws for a model the table does not price', () => {
    expect(() => snapshotPrice('video', 'video-x', BUILTIN_PRICING)).toThrow(/video-x/);
    expect(() => snapshotPrice('responses', 'chat-x', BUILTIN_PRICING)).toThrow(/chat-x/);
  });
});

describe('settleVideo', () => {
  const base = { requestedResolution: '720p' as const, hasReferenceVideo: false, snapshot: fast };

  it('charges the final total_tokens at the requested resolution: 108,900 x 3.8088 = $0.41477832', () => {
    const s = settleVideo({ ...base, totalTokens: 108_900, finalResolution: '720p' });
    expect(s).toEqual({ usd: 0.41477832, resolution: '720p', rate: 3.8088, rateResolution: '720p', fallback: false });
  });

  it('charges noise tokens exactly: 108,917 x 3.8088 = $0.4148430696 -> $0.41484307', () => {
    expect(settleVideo({ ...base, totalTokens: 108_917, finalResolution: '720p' }).usd).toBe(0.41484307);
  });

  it('uses the final resolution when it is higher: 1080p 245,030 x 4.3235 = $1.059387205', () => {
    const s = settleVideo({ ...base, totalTokens: 245_030, finalResolution: '1080P' });
    expect(s.resolution).toBe('1080p');
    expect(s.rate).toBe(4.3235);
    expect(s.usd).toBe(1.059387205);
  });

  it('uses the final resolution when it is lower: asked 1080p, got 720p', () => {
    const s = settleVideo({ ...base, requestedResolution: '1080p', totalTokens: 108_900, finalResolution: '720p' });
    expect(s.resolution).toBe('720p');
    expect(s.usd).toBe(0.41477832);
  });

  it('assumes the requested resolution when the gateway names none or an unknown one', () => {
    expect(
      settleVideo({ ...base, requestedResolution: '1080p', totalTokens: 245_030, finalResolution: undefined }).usd,
    ).toBe(1.059387205);
    expect(
      settleVideo({ ...base, requestedResolution: '1080p', totalTokens: 245_030, finalResolution: '1920x1080' })
        .resolution,
    ).toBe('1080p');
  });

  it('takes the ref rate with a reference video: 216,900 x 2.2647 = $0.49121343 vs x 3.8088 = $0.82612872', () => {
    expect(settleVideo({ ...base, hasReferenceVideo: true, totalTokens: 216_900, finalResolution: '720p' }).usd).toBe(
      0.49121343,
    );
    expect(settleVideo({ ...base, hasReferenceVideo: false, totalTokens: 216_900, finalResolution: '720p' }).usd).toBe(
      0.82612872,
    );
  });

  it('applies the snapshot group ratio: video-pro 4k 980,100 x 2.8676 x 2 = $5.62106952', () => {
    const snapshot = snapshotPrice('video', 'video-pro', { ...BUILTIN_PRICING, group_ratio: 2 });
    const s = settleVideo({
      totalTokens: 980_100,
      finalResolution: '4K',
      requestedResolution: '4k',
      hasReferenceVideo: false,
      snapshot,
    });
    expect(s.usd).toBe(5.62106952);
  });

  it("falls back to the requested resolution's rate, and says so, when the snapshot lacks the final one", () => {
    const snapshot = snapshotPrice('video', 'video-pro-2.5', BUILTIN_PRICING);
    const s = settleVideo({
      totalTokens: 108_900,
      finalResolution: '480p',
      requestedResolution: '720p',
      hasReferenceVideo: false,
      snapshot,
    });
    // 108,900 x 8.2353 = 896,824.17 -> $0.89682417
    expect(s).toEqual({ usd: 0.89682417, resolution: '480p', rate: 8.2353, rateResolution: '720p', fallback: true });
  });

  it('throws when neither resolution has a rate, and on impossible token counts', () => {
    const snapshot = snapshotPrice('video', 'video-pro-2.5', BUILTIN_PRICING);
    expect(() =>
      settleVideo({
        totalTokens: 1,
        finalResolution: '4k',
        requestedResolution: '480p',
        hasReferenceVideo: false,
        snapshot,
      }),
    ).toThrow(/4k.*480p/);
    expect(() => settleVideo({ ...base, totalTokens: -1, finalResolution: '720p' })).toThrow(/total_tokens/);
    expect(() => settleVideo({ ...base, totalTokens: Number.NaN, finalResolution: '720p' })).toThrow(/total_tokens/);
  });
});

describe('settleChat', () => {
  it('Chat Completions usage: 1000 prompt x 0.15 + 500 completion x 0.60 = $0.00045', () => {
    expect(settleChat({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }, small)).toEqual({
      usd: 0.00045,
      inputTokens: 1000,
      outputTokens: 500,
    });
  });

  it('Responses usage: input/output tokens, same amounts', () => {
    expect(settleChat({ input_tokens: 1000, output_tokens: 500, total_tokens: 1500 }, small)).toEqual({
      usd: 0.00045,
      inputTokens: 1000,
      outputTokens: 500,
    });
  });

  it('missing usage is 0 tokens, $0', () => {
    expect(settleChat(undefined, small)).toEqual({ usd: 0, inputTokens: 0, outputTokens: 0 });
    expect(settleChat({}, small)).toEqual({ usd: 0, inputTokens: 0, outputTokens: 0 });
  });

  it('a usage with only total_tokens is charged at the dearer rate: 1000 x 0.60 = $0.0006', () => {
    expect(settleChat({ total_tokens: 1000 }, small)).toEqual({ usd: 0.0006, inputTokens: 0, outputTokens: 1000 });
  });

  it('applies the group ratio: chat-large 1000 x 2.50 + 500 x 10.00 = $0.0075, x 1.5 = $0.01125', () => {
    const snapshot = snapshotPrice('chat', 'chat-large', { ...BUILTIN_PRICING, group_ratio: 1.5 });
    expect(settleChat({ prompt_tokens: 1000, completion_tokens: 500 }, snapshot).usd).toBe(0.01125);
  });

  it('throws when the snapshot has no chat rate', () => {
    expect(() => settleChat({ prompt_tokens: 1 }, fast)).toThrow(/chat rate/);
  });
});

describe('overshoot', () => {
  it('is what the actual charge exceeds the reservation by, free of float noise', () => {
    expect(overshoot(0.1, 0.15)).toBe(0.05);
    expect(overshoot(0.41477832, 0.41484307)).toBe(0.00006475);
  });
  it('is 0 when the actual charge is within the reservation', () => {
    expect(overshoot(0.2, 0.1)).toBe(0);
    expect(overshoot(0.2, 0.2)).toBe(0);
  });
});

describe('money', () => {
  it('rounds to nano-dollars', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
    expect(roundUsd(-0.0000000001)).toBe(0);
    expect(Object.is(roundUsd(-0.0000000001), -0)).toBe(false);
    expect(roundUsd(-1.0000000004)).toBe(-1);
    expect(() => roundUsd(Number.POSITIVE_INFINITY)).toThrow();
  });
  it('formats dollars', () => {
    expect(formatUsd(0.41477832)).toBe('$0.414778');
    expect(formatUsd(2.5, 2)).toBe('$2.50');
    expect(formatUsd(-0.1)).toBe('-$0.100000');
    expect(formatUsd(-0.0000001)).toBe('$0.000000');
  });
});
