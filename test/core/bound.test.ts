import { describe, expect, it } from 'vitest';
import { billBound, boundedRequest, statedOutputCap, withDuration, withOutputCap } from '../../src/core/bound.js';
import { DEFAULT_MAX_OUTPUT_TOKENS, estimateRequest } from '../../src/core/estimate.js';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';

// Tokens by hand: floor(w*h*(24*s+1)/1024). 5 s: 480p 48,437; 720p 108,900; 1080p 245,025; 4k 980,100.

describe('billBound: video, the dearest final resolution the model lists (spec 8.3.3)', () => {
  it('video-pro at 480p can be billed at 4k: 980,100 tokens x 2.8676 = $2.81053476, ~11x the estimate', () => {
    const request = { model: 'video-pro', prompt: 'p', resolution: '480p', duration: 5 };
    expect(billBound('video', request, BUILTIN_PRICING)).toBe(2.81053476);
    const estimate = estimateRequest('video', request, BUILTIN_PRICING).usd;
    expect(estimate).toBe(0.24574512); // 48,437 x 5.0735
    expect(billBound('video', request, BUILTIN_PRICING) / estimate).toBeGreaterThan(11);
  });

  it('a model without 4k is bounded by its 1080p: video-mini 5 s = 245,025 x 1.875', () => {
    expect(billBound('video', { model: 'video-mini', prompt: 'p', resolution: '480p' }, BUILTIN_PRICING)).toBe(
      0.459421875,
    );
  });

  it('each reference video adds 5 s at every resolution, at the ref rate', () => {
    // video-pro 2 s + 5 s of reference = 7 s at 4k: 3840*2160*169/1024 = 1,368,900 tokens x 1.7647.
    const request = { model: 'video-pro', prompt: 'p', resolution: '720p', duration: 2, video_url: 'https://x/v.mp4' };
    expect(billBound('video', request, BUILTIN_PRICING)).toBe(2.41569783);
  });

  it('the group ratio multiplies the bound', () => {
    const request = { model: 'video-mini', prompt: 'p' };
    expect(billBound('video', request, { ...BUILTIN_PRICING, group_ratio: 2 })).toBe(0.91884375);
  });

  it("n videos, a frame rate above 24 and a frame larger than the resolution's each raise the bound", () => {
    const base = billBound(
      'video',
      { model: 'video-mini', prompt: 'p', resolution: '480p', duration: 5 },
      BUILTIN_PRICING,
    );
    expect(
      billBound('video', { model: 'video-mini', prompt: 'p', resolution: '480p', duration: 5, n: 3 }, BUILTIN_PRICING),
    ).toBeCloseTo(base * 3, 6);
    // 48 fps: (48 x 5 + 1) / (24 x 5 + 1) frames, at the dearest resolution (1080p for video-mini)
    expect(
      billBound(
        'video',
        { model: 'video-mini', prompt: 'p', resolution: '480p', duration: 5, fps: 48 },
        BUILTIN_PRICING,
      ),
    ).toBeCloseTo(base * (241 / 121), 4);
    // a 4096 x 2160 frame is larger than video-mini's dearest (1080p) frame
    const wide = billBound(
      'video',
      { model: 'video-mini', prompt: 'p', resolution: '480p', duration: 5, width: 4096, height: 2160 },
      BUILTIN_PRICING,
    );
    expect(wide).toBeCloseTo(base * ((4096 * 2160) / (1920 * 1080)), 4);
    // a smaller frame or a lower frame rate never lowers it
    expect(
      billBound(
        'video',
        { model: 'video-mini', prompt: 'p', resolution: '480p', duration: 5, fps: 8, width: 64, height: 64 },
        BUILTIN_PRICING,
      ),
    ).toBe(base);
  });

  it('an unknown model throws, as the estimate does', () => {
    expect(() => billBound('video', { model: 'nope', prompt: 'p' }, BUILTIN_PRICING)).toThrow(
      /no price for video model 'nope'/,
    );
  });
});

describe('billBound: chat and responses, every request byte a token plus the output cap', () => {
  it('chat: the JSON bytes of the request in, max_tokens x n out', () => {
    const request = { model: 'chat-small', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100, n: 2 };
    const bytes = Buffer.byteLength(JSON.stringify(request));
    expect(billBound('chat', request, BUILTIN_PRICING)).toBeCloseTo((bytes * 0.15 + 200 * 0.6) / 1e6, 12);
  });

  it('is never below the estimate (which counts only the text)', () => {
    const request = {
      model: 'chat-large',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Héllo' },
      ],
      max_tokens: 10,
    };
    expect(billBound('chat', request, BUILTIN_PRICING)).toBeGreaterThan(
      estimateRequest('chat', request, BUILTIN_PRICING).usd,
    );
  });

  it('chat takes the larger of max_tokens and max_completion_tokens (a server may honour either)', () => {
    expect(statedOutputCap('chat', { max_tokens: 5000, max_completion_tokens: 10 })).toBe(5000);
    expect(statedOutputCap('chat', { max_completion_tokens: 10 })).toBe(10);
  });

  it('a cap of the other kind does not cap: max_output_tokens means nothing to chat completions', () => {
    expect(statedOutputCap('chat', { max_output_tokens: 10 })).toBeUndefined();
    expect(statedOutputCap('responses', { max_tokens: 10 })).toBeUndefined();
    expect(statedOutputCap('responses', { max_output_tokens: 0 })).toBe(0);
  });

  it('without a cap the bound assumes the default cap the row is then sent with', () => {
    const request = { model: 'chat-small', input: 'Hi' };
    const sent = withOutputCap('responses', request).request;
    const bytes = Buffer.byteLength(JSON.stringify(sent));
    expect(billBound('responses', sent, BUILTIN_PRICING)).toBeCloseTo(
      (bytes * 0.15 + DEFAULT_MAX_OUTPUT_TOKENS * 0.6) / 1e6,
      12,
    );
  });
});

describe('withOutputCap', () => {
  it('adds max_tokens to an uncapped chat request, on a copy', () => {
    const request = { model: 'chat-small', messages: [{ role: 'user', content: 'Hi' }] };
    const { request: sent, added } = withOutputCap('chat', request);
    expect(added).toBe('max_tokens');
    expect(sent).toEqual({ ...request, max_tokens: DEFAULT_MAX_OUTPUT_TOKENS });
    expect(request).not.toHaveProperty('max_tokens');
  });

  it('adds max_output_tokens to an uncapped responses request', () => {
    expect(withOutputCap('responses', { model: 'chat-small', input: 'Hi' })).toEqual({
      request: { model: 'chat-small', input: 'Hi', max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS },
      added: 'max_output_tokens',
    });
  });

  it('leaves a capped text request and every video request as they are (the same object)', () => {
    const capped = { model: 'chat-small', messages: [], max_completion_tokens: 7 };
    expect(withOutputCap('chat', capped).request).toBe(capped);
    const video = { model: 'video-pro', prompt: 'p' };
    expect(withOutputCap('video', video)).toEqual({ request: video });
  });
});

describe('withDuration: a video is sent with the seconds it was bounded at', () => {
  it('adds duration 5 to a video request that states none, on a copy; the bound is the same', () => {
    const request = { model: 'video-mini', prompt: 'p', resolution: '1080p' };
    const { request: sent, added } = withDuration(request);
    expect(added).toBe('duration');
    expect(sent).toEqual({ ...request, duration: 5 });
    expect(request).not.toHaveProperty('duration');
    expect(billBound('video', sent, BUILTIN_PRICING)).toBe(billBound('video', request, BUILTIN_PRICING));
  });

  it('leaves a stated duration, or its alias seconds, as it is (the same object)', () => {
    const stated = { model: 'video-mini', prompt: 'p', duration: 8 };
    expect(withDuration(stated).request).toBe(stated);
    const alias = { model: 'video-mini', prompt: 'p', seconds: '8' };
    expect(withDuration(alias)).toEqual({ request: alias });
  });

  it('boundedRequest: the duration for video, the output cap for text', () => {
    expect(boundedRequest('video', { model: 'video-mini', prompt: 'p' }).added).toBe('duration');
    expect(boundedRequest('chat', { model: 'chat-small', messages: [] }).added).toBe('max_tokens');
  });
});
