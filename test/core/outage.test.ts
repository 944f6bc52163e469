import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTAGE_MS, outageBoundMs, outageRetryDelay } from '../../src/core/outage.js';

describe('outageRetryDelay', () => {
  it('waits with growing backoff while the bound lasts, never less than a few ms', () => {
    expect(outageRetryDelay(1, 0, 30_000, () => 0)).toBe(25);
    expect(outageRetryDelay(1, 0, 30_000, () => 1)).toBe(100);
    expect(outageRetryDelay(4, 0, 30_000, () => 1)).toBe(800);
    expect(outageRetryDelay(20, 0, 30_000, () => 1)).toBe(2000);
  });

  it('never waits past the bound, and gives up once it is spent', () => {
    expect(outageRetryDelay(20, 29_500, 30_000, () => 1)).toBe(500);
    expect(outageRetryDelay(1, 30_000, 30_000, () => 1)).toBeUndefined();
    expect(outageRetryDelay(1, 31_000, 30_000, () => 0)).toBeUndefined();
  });
});

describe('outageBoundMs', () => {
  it('is 30 s unless the environment shortens it', () => {
    expect(outageBoundMs({})).toBe(DEFAULT_OUTAGE_MS);
    expect(DEFAULT_OUTAGE_MS).toBe(30_000);
    expect(outageBoundMs({ GBATCH_JOURNAL_OUTAGE_MS: '1500' })).toBe(1500);
    expect(outageBoundMs({ GBATCH_JOURNAL_OUTAGE_MS: 'soon' })).toBe(DEFAULT_OUTAGE_MS);
  });
});
