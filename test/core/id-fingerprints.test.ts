import { describe, expect, it } from 'vitest';
import { IdFingerprints } from '../../src/core/id-fingerprints.js';

describe('IdFingerprints', () => {
  it('answers "seen" exactly for ids added before, across the table\'s growth', () => {
    const ids = new IdFingerprints(4);
    const count = 100_000;
    for (let i = 0; i < count; i++) expect(ids.add(`row-${i}`)).toBe(false);
    expect(ids.size).toBe(count);
    for (let i = 0; i < count; i += 997) expect(ids.add(`row-${i}`)).toBe(true);
    expect(ids.add('row-100000')).toBe(false);
    expect(ids.add('')).toBe(false);
    expect(ids.add('')).toBe(true);
    expect(ids.size).toBe(count + 2);
  });
});
