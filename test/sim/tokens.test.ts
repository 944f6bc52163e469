import { describe, expect, test } from 'vitest';
import {
  chatUsd,
  promptTokensForChars,
  QUOTA_PER_USD,
  REFERENCE_VIDEO_SECONDS,
  reservationTokens,
  tokensUsd,
  usdToQuota,
  videoTokens,
} from '../../src/sim/tokens.js';

describe('video token formula: floor(w*h*(24*s+1)/1024)', () => {
  test.each([
    ['480p', 5, Math.floor((854 * 480 * 121) / 1024), 48437],
    ['720p', 5, Math.floor((1280 * 720 * 121) / 1024), 108900],
    ['1080p', 5, Math.floor((1920 * 1080 * 121) / 1024), 245025],
    ['4k', 10, Math.floor((3840 * 2160 * 241) / 1024), 1952100],
    ['720p', 0, 900, 900],
  ] as const)('%s %i s is %i tokens', (resolution, seconds, formula, handValue) => {
    expect(videoTokens(resolution, seconds)).toBe(formula);
    expect(formula).toBe(handValue);
  });

  test('a reference video adds 5 s of frames to the reservation only', () => {
    expect(REFERENCE_VIDEO_SECONDS).toBe(5);
    // 720p 5 s + one reference: frames 24 * 10 + 1 = 241 -> 900 * 241.
    expect(reservationTokens('720p', 5, 1)).toBe(216900);
    expect(reservationTokens('720p', 5, 2)).toBe(900 * 361);
    expect(reservationTokens('720p', 5, 0)).toBe(videoTokens('720p', 5));
  });
});

describe('money', () => {
  test('video-fast 720p 5 s without reference costs 0.41477832 USD', () => {
    expect(tokensUsd(108900, 3.8088, 1)).toBeCloseTo(0.41477832, 12);
    expect(tokensUsd(108900, 3.8088, 1.5)).toBeCloseTo(0.62216748, 12);
  });

  test('500,000 quota is one USD', () => {
    expect(QUOTA_PER_USD).toBe(500_000);
    expect(usdToQuota(0.41477832)).toBe(207389);
  });

  test('chat: prompt tokens are ceil(chars / 4); cost from the per-million rates', () => {
    expect(promptTokensForChars(0)).toBe(0);
    expect(promptTokensForChars(12)).toBe(3);
    expect(promptTokensForChars(13)).toBe(4);
    expect(chatUsd(3, 20, { inputPer1m: 0.15, outputPer1m: 0.6 }, 1)).toBeCloseTo((3 * 0.15 + 20 * 0.6) / 1e6, 15);
  });
});
