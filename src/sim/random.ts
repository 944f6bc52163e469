// One seeded PRNG for every random choice of the simulator, so a seed replays the same run.

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** True with probability `rate` (0 never draws, so a zero rate leaves the sequence untouched). */
  chance(rate: number): boolean;
  /** Uniform integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
  pick<T>(items: readonly T[]): T;
  base62(length: number): string;
  /** Where the sequence stands: createRandom(seed, state) carries it on (a simulator restarted on its --state). */
  state(): number;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** mulberry32: tiny, fast and good enough for simulation. `resume`: a state() read earlier. */
export function createRandom(seed: number, resume?: number): Random {
  let state = (resume ?? seed) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (maxExclusive: number): number => Math.floor(next() * maxExclusive);
  return {
    next,
    int,
    chance: (rate) => rate > 0 && next() < rate,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(items.length)] as T;
    },
    state: () => state,
    base62: (length) => {
      let out = '';
      for (let i = 0; i < length; i++) out += BASE62[int(62)];
      return out;
    },
  };
}
