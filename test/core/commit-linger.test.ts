import { describe, expect, it } from 'vitest';
import { commitLingerMs, MAX_LINGER_MS, typicalExchangeAfter } from '../../src/core/commit-linger.js';

describe('commitLingerMs', () => {
  it('waits nothing before any exchange was timed', () => {
    expect(commitLingerMs(undefined)).toBe(0);
    expect(commitLingerMs(0)).toBe(0);
    expect(commitLingerMs(Number.NaN)).toBe(0);
  });

  it('waits half a percent of the typical exchange: 5 ms at 1 s, 0.5 ms at 100 ms', () => {
    expect(commitLingerMs(1000)).toBe(5);
    expect(commitLingerMs(100)).toBe(0.5);
  });

  it('never waits longer than its cap, however slow the gateway', () => {
    expect(commitLingerMs(60_000)).toBe(MAX_LINGER_MS);
  });
});

describe('typicalExchangeAfter', () => {
  it('starts at the first exchange', () => {
    expect(typicalExchangeAfter(undefined, 800)).toBe(800);
  });

  it('follows a change of pace over a few dozen exchanges', () => {
    let typical: number | undefined = 200;
    for (let i = 0; i < 60; i++) typical = typicalExchangeAfter(typical, 1000);
    expect(typical).toBeGreaterThan(950);
    expect(typical).toBeLessThan(1000);
  });

  it('one exchange that timed out moves it by a twentieth of the difference', () => {
    expect(typicalExchangeAfter(1000, 61_000)).toBe(4000);
  });
});
