import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { driftInForce, type SeenDrift } from '../../src/core/seen-drift.js';

/** A video-mini row at 720p, 5 s, no reference: the built-in table says $0.18417168 (108,900 tokens at $1.6912/M). */
function mini(gatewayChargeUsd: number, overrides: Partial<SeenDrift> = {}): SeenDrift {
  return {
    account: 'acct',
    model: 'video-mini',
    itemId: 'v1',
    totalTokens: 108_900,
    resolution: '720p',
    finalResolution: '720p',
    hasReferenceVideo: false,
    tableUsd: 0.18417168,
    gatewayChargeUsd,
    ratio: gatewayChargeUsd / 0.18417168,
    ...overrides,
  };
}

describe('driftInForce: the group ratio a runner scales by', () => {
  it('none seen: none in force', () => {
    expect(driftInForce([], 'acct', BUILTIN_PRICING)).toBeUndefined();
  });

  it("a row charged twice the table's figure: x2, against the table in force", () => {
    const seen = mini(0.36834336);
    expect(driftInForce([seen], 'acct', BUILTIN_PRICING)).toEqual({
      ratio: expect.closeTo(2, 9),
      seen,
      tableUsd: 0.18417168,
    });
  });

  it("another account's ratio is not this account's", () => {
    expect(driftInForce([mini(0.36834336, { account: 'other' })], 'acct', BUILTIN_PRICING)).toBeUndefined();
  });

  it('a pricing file corrected since (its group_ratio 2) leaves none; one raised to 1.5 leaves x1.333', () => {
    const seen = [mini(0.36834336)];
    expect(driftInForce(seen, 'acct', { ...BUILTIN_PRICING, group_ratio: 2 })).toBeUndefined();
    expect(driftInForce(seen, 'acct', { ...BUILTIN_PRICING, group_ratio: 1.5 })!.ratio).toBeCloseTo(4 / 3, 9);
  });

  it("the largest over the account's models applies (a group ratio is the account's); a model the table lacks is skipped", () => {
    const pro = mini(3 * 0.55252, {
      model: 'video-pro',
      itemId: 'p1',
      totalTokens: 108_900,
      tableUsd: 0.55252,
    });
    // video-pro at 720p without a reference: $5.0735/M, 108,900 tokens = $0.55250415.
    const found = driftInForce([mini(0.36834336), pro, mini(9, { model: 'video-gone' })], 'acct', BUILTIN_PRICING);
    expect(found!.seen.itemId).toBe('p1');
    expect(found!.ratio).toBeCloseTo((3 * 0.55252) / 0.55250415, 9);
    expect(found!.tableUsd).toBe(0.55250415);
  });

  it('a charge within one quota unit of the table is the same price: no drift', () => {
    expect(driftInForce([mini(0.18417168 + 1 / 500_000)], 'acct', BUILTIN_PRICING)).toBeUndefined();
  });
});
