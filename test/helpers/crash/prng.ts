// A seeded PRNG so every kill schedule can be replayed from its seed: the simulator's own mulberry32.
import { createRandom } from '../../../src/sim/random.js';

export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  /** Uniform in [min, max). */
  between(min: number, max: number): number;
}

export function createPrng(seed: number): Prng {
  const random = createRandom(seed);
  return {
    next: random.next,
    int: (min, max) => min + random.int(max - min + 1),
    between: (min, max) => min + random.next() * (max - min),
  };
}
