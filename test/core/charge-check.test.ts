import { describe, expect, it } from 'vitest';
import {
  CHARGE_GRAIN_USD,
  checkCharge,
  checkSettledVideo,
  formatRatio,
  scaledReservation,
  textAtDrift,
  textCorrection,
} from '../../src/core/charge-check.js';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { snapshotPrice } from '../../src/core/settlement.js';

describe("checkCharge: the table's figure against the gateway's reported charge", () => {
  it("without a reported charge: the table's figure, no drift", () => {
    expect(checkCharge(0.18417168, undefined)).toEqual({ bookedUsd: 0.18417168 });
  });

  it("the gateway charged less: the table's (larger) figure is booked, no drift", () => {
    expect(checkCharge(0.5, 0.25)).toEqual({ bookedUsd: 0.5 });
  });

  it("within one quota unit above the table: the same price rounded to the gateway's unit, the table's exact figure, no drift", () => {
    expect(checkCharge(0.1, 0.1 + CHARGE_GRAIN_USD)).toEqual({ bookedUsd: 0.1 });
    expect(checkCharge(0.1, 0.1 + 2 * CHARGE_GRAIN_USD).driftRatio).toBeCloseTo(1.00004, 8);
  });

  it('the gateway charged more (a group ratio of 2): its charge is booked, the ratio is the drift', () => {
    const check = checkCharge(0.18417168, 0.368344);
    expect(check.bookedUsd).toBe(0.368344);
    expect(check.driftRatio).toBeCloseTo(2, 4);
  });

  it('the table says $0 but the gateway charged: an unbounded drift', () => {
    expect(checkCharge(0, 0.01)).toEqual({ bookedUsd: 0.01, driftRatio: Infinity });
  });
});

describe('scaledReservation', () => {
  it('scales by a drift above 1 and leaves it alone otherwise', () => {
    expect(scaledReservation(0.459421875, 2)).toBe(0.91884375);
    expect(scaledReservation(0.45942188, 1)).toBe(0.45942188);
  });

  it('an unbounded drift makes the reservation unbounded (no budget can fit it)', () => {
    expect(scaledReservation(0.1, Infinity)).toBe(Infinity);
  });
});

describe('textAtDrift', () => {
  it("no drift seen: the table's price, no note", () => {
    expect(textAtDrift(0.00045, 1)).toEqual({ usd: 0.00045 });
  });

  it("a drift seen: the table's price times it, with a note naming both", () => {
    expect(textAtDrift(0.00045, 2)).toEqual({
      usd: 0.0009,
      note: "booked at the pricing table's $0.000450 x2.000: the gateway was seen charging that much above the table",
    });
  });

  it("an unbounded drift cannot scale a price: the table's price (the reservation held what the row can cost)", () => {
    expect(textAtDrift(0.00045, Infinity)).toEqual({ usd: 0.00045 });
    expect(formatRatio(Infinity)).toBe('x∞');
  });
});

describe('textCorrection: a text answer booked at one ratio, checked against the ratio known after it', () => {
  const booked = (tableUsd: number, ratio: number) => ({ tableUsd, ratio, usd: textAtDrift(tableUsd, ratio).usd });

  it('a higher ratio since the booking: the charge it would have been booked at, with its note', () => {
    expect(textCorrection(booked(0.00045, 1), 2)).toEqual(textAtDrift(0.00045, 2));
    expect(textCorrection(booked(0.00045, 1.5), 2)).toEqual({
      usd: 0.0009,
      note: "booked at the pricing table's $0.000450 x2.000: the gateway was seen charging that much above the table",
    });
  });

  it('the same ratio, a lower one or none: the booking stands', () => {
    expect(textCorrection(booked(0.00045, 2), 2)).toBeUndefined();
    expect(textCorrection(booked(0.00045, 2), 1.5)).toBeUndefined();
    expect(textCorrection(booked(0.00045, 1), 1)).toBeUndefined();
  });

  it('an unbounded ratio cannot scale a price, and a rise too small for a cent fraction changes nothing', () => {
    expect(textCorrection(booked(0.00045, 1), Infinity)).toBeUndefined();
    expect(textCorrection(booked(0.0000001, 1), 1.0000001)).toBeUndefined();
  });
});

describe("checkSettledVideo: a settled video's table figure (by the rule it was settled with) against its reported charge", () => {
  const snapshot = snapshotPrice('video', 'video-mini', BUILTIN_PRICING);
  const row = {
    totalTokens: 108_900,
    finalResolution: '720p',
    resolution: '720p',
    hasReferenceVideo: false,
    gatewayChargeUsd: 0.368344,
  };

  it("the gateway charged twice the table: the table's figure and the drift", () => {
    const check = checkSettledVideo(row, snapshot)!;
    expect(check.tableUsd).toBe(0.18417168);
    expect(check.bookedUsd).toBe(0.368344);
    expect(check.driftRatio).toBeCloseTo(2, 4);
  });

  it('a table that already carries the ratio (group_ratio 2): no drift', () => {
    const corrected = snapshotPrice('video', 'video-mini', { ...BUILTIN_PRICING, group_ratio: 2 });
    expect(checkSettledVideo(row, corrected)).toEqual({ tableUsd: 0.36834336, bookedUsd: 0.36834336 });
  });

  it('nothing to compare: no reported charge, no tokens, no snapshot, or no rate for the resolution', () => {
    expect(checkSettledVideo({ ...row, gatewayChargeUsd: null }, snapshot)).toBeUndefined();
    expect(checkSettledVideo({ ...row, totalTokens: null }, snapshot)).toBeUndefined();
    expect(checkSettledVideo(row, null)).toBeUndefined();
    expect(checkSettledVideo(row, { groupRatio: 1, video: {} })).toBeUndefined();
  });
});
