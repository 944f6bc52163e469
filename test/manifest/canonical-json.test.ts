// canonicalJson takes JSON.stringify's path for data already in sorted key order; whatever the path,
// the text must be that of a plain sorted-key serializer.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/manifest/content-hash.js';
import { createRandom } from '../../src/sim/random.js';

/** The definition, written as plainly as possible. */
function reference(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (value === null || typeof value !== 'object') return 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

const KEYS = [
  'a',
  'b',
  'model',
  'messages',
  'max_tokens',
  'role',
  'content',
  '1',
  '2',
  '10',
  '9',
  'Z',
  'é',
  '__proto__',
];

function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 2 ? 6 : 8));
  switch (pick) {
    case 0:
      return `text ${Math.floor(random() * 100)} ✓`;
    case 1:
      return [0, -0, 1.5, 1e21, NaN, Infinity][Math.floor(random() * 6)];
    case 2:
      return random() < 0.5;
    case 3:
      return null;
    case 4:
      return undefined;
    case 5:
      return `\ud800 lone`;
    case 6:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default: {
      const keys = [...KEYS].sort(() => random() - 0.5).slice(0, Math.floor(random() * 5));
      // Half the objects are built in sorted order: those take the fast path.
      if (random() < 0.5) keys.sort();
      const object: Record<string, unknown> = {};
      for (const key of keys)
        Object.defineProperty(object, key, {
          value: randomValue(random, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return object;
    }
  }
}

describe('canonicalJson', () => {
  it('equals the sorted-key definition for 5,000 random values, sorted or not', () => {
    const seeded = createRandom(42);
    const random = (): number => seeded.next();
    for (let i = 0; i < 5000; i++) {
      const value = { root: randomValue(random, 0), [`k${i % 7}`]: randomValue(random, 0) };
      expect(canonicalJson(value)).toBe(reference(value));
    }
  });

  it('does not let JSON.stringify see what it would write differently: toJSON, dates, functions', () => {
    const value = { a: new Date(0), b: { toJSON: () => 5 }, c: () => 1, d: [() => 1] };
    expect(canonicalJson(value)).toBe('{"a":{},"b":{"toJSON":null},"c":null,"d":[null]}');
  });
});
