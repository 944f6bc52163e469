import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../../src/pipeline/lanes/min-heap.js';

/** mulberry32: a small seeded PRNG so a failure is reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('MinHeap', () => {
  it('is empty at first', () => {
    const heap = new MinHeap<number>((a, b) => a < b);
    expect(heap.size).toBe(0);
    expect(heap.peek()).toBeUndefined();
    expect(heap.pop()).toBeUndefined();
  });

  it.each([1, 2, 3])('matches a sorted reference over 1,000 random pushes and pops (seed %i)', (seed) => {
    const random = seeded(seed);
    const heap = new MinHeap<number>((a, b) => a < b);
    const reference: number[] = [];
    let pops = 0;
    for (let op = 0; op < 1000; op++) {
      if (reference.length === 0 || random() < 0.6) {
        const value = Math.floor(random() * 200); // small range: plenty of ties
        heap.push(value);
        reference.push(value);
        reference.sort((a, b) => a - b);
      } else {
        expect(heap.peek()).toBe(reference[0]);
        expect(heap.pop()).toBe(reference.shift());
        pops++;
      }
      expect(heap.size).toBe(reference.length);
    }
    expect(pops).toBeGreaterThan(200);
    const drained: number[] = [];
    while (heap.size > 0) drained.push(heap.pop()!);
    expect(drained).toEqual(reference);
  });

  it('orders records by the given comparator (the poller\'s "next poll due at")', () => {
    const heap = new MinHeap<{ at: number; id: string }>((a, b) => a.at < b.at);
    for (const [at, id] of [
      [30, 'c'],
      [10, 'a'],
      [20, 'b'],
      [5, 'z'],
    ] as const)
      heap.push({ at, id });
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop()].map((d) => d!.id)).toEqual(['z', 'a', 'b', 'c']);
  });
});
