import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  estimateRequest,
  REFERENCE_VIDEO_SECONDS,
  requestedSeconds,
  videoTokens,
  type ChatEstimate,
  type VideoEstimate,
} from '../../src/core/estimate.js';
import { BUILTIN_PRICING, type PricingTable } from '../../src/core/pricing.js';
import { countReferenceVideos, hasReferenceVideo } from '../../src/core/reference-video.js';

// Every expected value below is worked out by hand from spec 8.2 and the token formula
// floor(w*h*(24*s+1)/1024); 720p is 1280x720, so w*h/1024 = 900 and 5 s 720p = 900 * 121 = 108,900.

const video = (request: Record<string, unknown>, pricing: PricingTable = BUILTIN_PRICING) =>
  estimateRequest('video', request, pricing) as VideoEstimate;
const chat = (request: Record<string, unknown>, pricing: PricingTable = BUILTIN_PRICING) =>
  estimateRequest('chat', request, pricing) as ChatEstimate;

describe('videoTokens', () => {
  it('is 108,900 for a 5 s 720p clip', () => {
    expect(videoTokens('720p', 5)).toBe(108_900);
  });
  it('floors at 480p (854x480: 409,920 * 121 / 1024 = 48,437.8)', () => {
    expect(videoTokens('480p', 5)).toBe(48_437);
  });
  it('counts one frame for a 0 s clip', () => {
    expect(videoTokens('1080p', 0)).toBe(2_025);
  });
});

describe('requestedSeconds', () => {
  it('defaults to 5', () => expect(requestedSeconds({})).toBe(5));
  it('parses a numeric duration string', () => expect(requestedSeconds({ duration: '7' })).toBe(7));
  it('accepts the seconds alias', () => expect(requestedSeconds({ seconds: '10' })).toBe(10));
  it('prefers duration over seconds', () => expect(requestedSeconds({ duration: 4, seconds: '10' })).toBe(4));
  it('passes over blank and non-numeric values', () => {
    expect(requestedSeconds({ duration: '', seconds: 'abc' })).toBe(5);
    expect(requestedSeconds({ duration: -3 })).toBe(5);
  });
});

describe('estimateRequest for video', () => {
  it('video-fast 720p 5 s without reference: 108,900 tokens at 3.8088 = $0.41477832', () => {
    const e = video({ model: 'video-fast', prompt: 'a cat', resolution: '720p', duration: 5 });
    expect(e).toEqual({
      kind: 'video',
      model: 'video-fast',
      resolution: '720p',
      seconds: 5,
      hasReferenceVideo: false,
      referenceVideos: 0,
      tokens: 108_900,
      rate: 3.8088,
      groupRatio: 1,
      usd: 0.41477832,
    });
  });

  it('a video_url adds 5 s and takes the ref rate: 10 s 720p = 216,900 tokens at 2.2647 = $0.49121343', () => {
    const e = video({ model: 'video-fast', prompt: 'p', video_url: 'https://x/ref.mp4' });
    expect(REFERENCE_VIDEO_SECONDS).toBe(5);
    expect(e.tokens).toBe(216_900);
    expect(e.seconds).toBe(5);
    expect(e.hasReferenceVideo).toBe(true);
    expect(e.rate).toBe(2.2647);
    expect(e.usd).toBe(0.49121343);
  });

  it('three reference videos add 15 s: 20 s 720p = 432,900 tokens at 2.2647 = $0.98038863', () => {
    const e = video({
      model: 'video-fast',
      prompt: 'p',
      video_url: 'u',
      videos: ['a', { url: 'b', role: 'reference_video' }],
    });
    expect(e.referenceVideos).toBe(3);
    expect(e.tokens).toBe(432_900);
    expect(e.usd).toBe(0.98038863);
  });

  it('video-pro 4k 5 s: 980,100 tokens at 2.8676 = $2.81053476', () => {
    const e = video({ model: 'video-pro', prompt: 'p', resolution: '4k' });
    expect(e.tokens).toBe(980_100);
    expect(e.usd).toBe(2.81053476);
  });

  it('accepts `4K` as 4k', () => {
    const e = video({ model: 'video-pro', prompt: 'p', resolution: '4K' });
    expect(e.resolution).toBe('4k');
    expect(e.usd).toBe(2.81053476);
  });

  it('video-pro-2.5 1080p 5 s: 245,025 tokens at 9.0588 = $2.21963247', () => {
    const e = video({ model: 'video-pro-2.5', prompt: 'p', resolution: '1080p' });
    expect(e.tokens).toBe(245_025);
    expect(e.usd).toBe(2.21963247);
  });

  it('video-mini 480p 5 s: 48,437 tokens at 1.6912 = $0.081916654 (rounded to nano-dollars)', () => {
    const e = video({ model: 'video-mini', prompt: 'p', resolution: '480p' });
    expect(e.tokens).toBe(48_437);
    expect(e.usd).toBe(0.081916654);
  });

  it('applies the group ratio: 1.5 x $0.41477832 = $0.62216748', () => {
    const e = video({ model: 'video-fast', prompt: 'p' }, { ...BUILTIN_PRICING, group_ratio: 1.5 });
    expect(e.groupRatio).toBe(1.5);
    expect(e.usd).toBe(0.62216748);
  });

  it('reads duration "7": 900 * 169 = 152,100 tokens at 3.8088 = $0.57931848', () => {
    const e = video({ model: 'video-fast', prompt: 'p', duration: '7' });
    expect(e.seconds).toBe(7);
    expect(e.tokens).toBe(152_100);
    expect(e.usd).toBe(0.57931848);
  });

  it('reads the seconds alias "10": 216,900 tokens at 3.8088 = $0.82612872', () => {
    const e = video({ model: 'video-fast', prompt: 'p', seconds: '10' });
    expect(e.tokens).toBe(216_900);
    expect(e.usd).toBe(0.82612872);
  });

  it('bills an omitted or unrecognised resolution as 720p', () => {
    expect(video({ model: 'video-fast', prompt: 'p' }).resolution).toBe('720p');
    expect(video({ model: 'video-fast', prompt: 'p', resolution: '2k' }).resolution).toBe('720p');
  });

  it('does not count images as reference videos', () => {
    const e = video({
      model: 'video-fast',
      prompt: 'p',
      image: 'i',
      images: ['a'],
      input_reference: 'r',
      content: [{ type: 'image_url', image_url: { url: 'x' } }],
    });
    expect(e.hasReferenceVideo).toBe(false);
    expect(e.usd).toBe(0.41477832);
  });

  it('throws, naming model and resolution, when the price is missing', () => {
    expect(() => video({ model: 'video-pro-2.5', prompt: 'p', resolution: '480p' })).toThrow(/video-pro-2\.5.*480p/);
    expect(() => video({ model: 'video-unknown', prompt: 'p' })).toThrow(/video-unknown/);
  });
});

describe('countReferenceVideos', () => {
  it('counts video_url, videos and video items of content', () => {
    expect(countReferenceVideos({ video_url: 'u' })).toBe(1);
    expect(countReferenceVideos({ video_url: '' })).toBe(0);
    expect(countReferenceVideos({ videos: ['a', 'b'] })).toBe(2);
    expect(
      countReferenceVideos({
        content: [
          { type: 'video_url', video_url: { url: 'v' } },
          { type: 'text', text: 't' },
        ],
      }),
    ).toBe(1);
    expect(countReferenceVideos({ content: { video_url: 'v' } })).toBe(1);
    expect(countReferenceVideos({ content: [{ type: 'Reference_Video' }, { type: 'image_url' }] })).toBe(1);
    expect(hasReferenceVideo({ images: ['a'], image: 'b' })).toBe(false);
  });
});

describe('estimateRequest for chat and responses (an upper bound)', () => {
  it('counts UTF-8 bytes of every message: "Be brief." 9 + "héllo 世界" 13 = 22; max_tokens 100', () => {
    const e = chat({
      model: 'chat-small',
      max_tokens: 100,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'héllo 世界' },
      ],
    });
    expect(e.inputTokens).toBe(22);
    expect(e.outputTokens).toBe(100);
    // (22 * 0.15 + 100 * 0.60) / 1e6
    expect(e.usd).toBe(0.0000633);
  });

  it('counts text parts of array content', () => {
    const e = chat({
      model: 'chat-small',
      max_tokens: 0,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'abc' },
            { type: 'image_url', image_url: { url: 'http://img' } },
          ],
        },
      ],
    });
    expect(e.inputTokens).toBe(3);
  });

  it('assumes the default output bound (4096) when no max is given', () => {
    const e = chat({ model: 'chat-large', messages: [{ role: 'user', content: 'hi' }] });
    expect(DEFAULT_MAX_OUTPUT_TOKENS).toBe(4096);
    expect(e.outputTokens).toBe(4096);
    // (2 * 2.50 + 4096 * 10.00) / 1e6
    expect(e.usd).toBe(0.040965);
  });

  it('prefers max_completion_tokens over max_tokens and multiplies by n', () => {
    const e = chat({
      model: 'chat-small',
      n: 3,
      max_completion_tokens: 50,
      max_tokens: 999,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(e.outputTokens).toBe(150);
    // (2 * 0.15 + 150 * 0.60) / 1e6 = 90.3e-6
    expect(e.usd).toBe(0.0000903);
  });

  it('adds the JSON of tools', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const e = chat({ model: 'chat-small', max_tokens: 1, tools, messages: [{ role: 'user', content: 'hi' }] });
    // '[{"type":"function","function":{"name":"f"}}]' is 45 bytes
    expect(e.inputTokens).toBe(2 + 45);
  });

  it('responses: instructions + input string, max_output_tokens', () => {
    const e = estimateRequest(
      'responses',
      {
        model: 'chat-small',
        instructions: 'Answer in French.',
        input: 'Bonjour',
        max_output_tokens: 200,
      },
      BUILTIN_PRICING,
    ) as ChatEstimate;
    expect(e.kind).toBe('responses');
    expect(e.inputTokens).toBe(17 + 7);
    expect(e.outputTokens).toBe(200);
    // (24 * 0.15 + 200 * 0.60) / 1e6
    expect(e.usd).toBe(0.0001236);
  });

  it('responses: input items with input_text parts', () => {
    const e = estimateRequest(
      'responses',
      {
        model: 'chat-small',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'naïve' }] }],
      },
      BUILTIN_PRICING,
    ) as ChatEstimate;
    expect(e.inputTokens).toBe(6);
    expect(e.outputTokens).toBe(4096);
  });

  it('applies the group ratio', () => {
    const e = chat(
      { model: 'chat-small', max_tokens: 100, messages: [{ role: 'user', content: 'x'.repeat(1000) }] },
      { ...BUILTIN_PRICING, group_ratio: 2 },
    );
    // (1000 * 0.15 + 100 * 0.60) / 1e6 * 2 = 420e-6
    expect(e.usd).toBe(0.00042);
  });

  it('throws, naming the model, when the price is missing', () => {
    expect(() => chat({ model: 'chat-huge', messages: [] })).toThrow(/chat-huge/);
    expect(() => chat({ messages: [] })).toThrow(/model/);
  });
});
