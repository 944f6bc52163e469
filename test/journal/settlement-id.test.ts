// A settlement's id names it wherever the history is copied, and rises with the time it settled (the history's index
// then grows at its end).
import { describe, expect, it } from 'vitest';
import { settlementId } from '../../src/journal/index.js';

const parts = { account: 'acct', job: 'nightly', itemId: 'row-1', attempt: 1, at: 1_700_000_000_000 };

describe('settlementId', () => {
  it('is the same for the same settlement and differs for another attempt, row, job or account', () => {
    const id = settlementId(parts);
    expect(settlementId({ ...parts })).toBe(id);
    for (const other of [{ attempt: 2 }, { itemId: 'row-2' }, { job: 'other' }, { account: 'acct-2' }])
      expect(settlementId({ ...parts, ...other })).not.toBe(id);
  });

  it('sorts as the settlements happened, across the digits of the time', () => {
    const times = [0, 9, 35, 36, 1_000, 1_699_999_999_999, 1_700_000_000_000, 1_700_000_000_001, 4_102_444_800_000];
    const ids = times.map((at) => settlementId({ ...parts, at }));
    expect([...ids].sort()).toEqual(ids);
  });
});
