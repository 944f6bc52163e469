// The manifest's duplicate-id table: exact on real duplicates, through every growth of the table.
import { describe, expect, it } from 'vitest';
import { IdRegistry } from '../../src/core/id-registry.js';

describe('IdRegistry', () => {
  it('reports the first line of a duplicate, before and after the table grows', () => {
    const ids = new IdRegistry(4);
    expect(ids.register('a', 1)).toBeUndefined();
    expect(ids.register('a', 2)).toBe(1);
    for (let i = 0; i < 50_000; i++) expect(ids.register(`row-${i}`, i + 10)).toBeUndefined();
    expect(ids.register('a', 99)).toBe(1);
    expect(ids.register('row-49999', 100)).toBe(50_009);
    expect(ids.size).toBe(50_001);
    expect(ids.register('', 7)).toBeUndefined();
    expect(ids.register('', 8)).toBe(7);
    expect(ids.size).toBe(50_002);
  });

  it('tells apart ids that differ only slightly (no false duplicates over 200,000 ids)', () => {
    const ids = new IdRegistry();
    let duplicates = 0;
    for (let i = 0; i < 200_000; i++) {
      if (ids.register(`id${i}`, i + 1) !== undefined) duplicates++;
      if (ids.register(`Id${i}`, i + 1) !== undefined) duplicates++;
    }
    expect(duplicates).toBe(0);
  });
});
