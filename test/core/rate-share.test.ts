import { describe, expect, it } from 'vitest';
import { followUpRpm } from '../../src/core/rate-share.js';

describe('followUpRpm: the share of --rpm polls and downloads may take', () => {
  it('half of --rpm by default, at least one', () => {
    expect(followUpRpm(300, undefined)).toBe(150);
    expect(followUpRpm(1, undefined)).toBe(1);
  });
  it('--poll-rpm when given, never above --rpm', () => {
    expect(followUpRpm(300, 60)).toBe(60);
    expect(followUpRpm(100, 500)).toBe(100);
    expect(followUpRpm(undefined, 40)).toBe(40);
  });
  it('neither: unpaced', () => {
    expect(followUpRpm(undefined, undefined)).toBeUndefined();
  });
});
