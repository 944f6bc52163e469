// Local callers of one name take turns in the order they came; a failed turn passes it on; names are apart.
import { describe, expect, it } from 'vitest';
import { LocalTurns } from '../../../src/journal/postgres/local-turns.js';

describe('LocalTurns', () => {
  it('runs the works of one name one at a time, in order, a failure passing the turn on', async () => {
    const turns = new LocalTurns();
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = turns.take('results', async () => {
      order.push('1 in');
      await held;
      order.push('1 out');
      throw new Error('first failed');
    });
    const second = turns.take('results', async () => {
      order.push('2');
      return 2;
    });
    const other = turns.take('notices', async () => {
      order.push('other name');
      return 'other';
    });
    expect(await other).toBe('other');
    expect(order).toEqual(['1 in', 'other name']);
    release();
    await expect(first).rejects.toThrow('first failed');
    expect(await second).toBe(2);
    expect(order).toEqual(['1 in', 'other name', '1 out', '2']);
  });
});
