import { describe, expect, test } from 'vitest';
import { AccountRegistry, admitRequest } from '../../src/sim/accounts.js';
import { latencyOf, rollDrop, rollInjectedError } from '../../src/sim/faults.js';
import { defaultFaults } from '../../src/sim/options.js';
import { createRandom } from '../../src/sim/random.js';
import { countReferenceVideos } from '../../src/sim/reference-video.js';
import { chatInput, complete } from '../../src/sim/text-generation.js';
import { START } from '../helpers/sim-http.js';

describe('seeded randomness', () => {
  test('the same seed replays the same sequence; another seed does not', () => {
    const a = createRandom(7);
    const b = createRandom(7);
    const c = createRandom(8);
    const seqA = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  test('a zero rate draws nothing, so it does not shift the sequence', () => {
    const a = createRandom(3);
    const b = createRandom(3);
    expect(a.chance(0)).toBe(false);
    expect(a.next()).toBe(b.next());
  });

  test('base62 ids', () => {
    expect(createRandom(1).base62(24)).toMatch(/^[0-9A-Za-z]{24}$/);
  });
});

describe('reference video rule (spec 2.9)', () => {
  test.each([
    [{}, 0],
    [{ video_url: 'https://v' }, 1],
    [{ video_url: '  ' }, 0],
    [{ videos: ['a', 'b'] }, 2],
    [{ videos: [] }, 0],
    [{ content: [{ type: 'input_video', url: 'v' }, { video_url: 'v' }, { type: 'image_url' }] }, 2],
    [{ content: { type: 'video' } }, 1],
    [{ images: ['a'], image: 'b', input_reference: 'c', content: [{ type: 'image_url' }] }, 0],
  ])('%o has %i', (body, count) => {
    expect(countReferenceVideos(body)).toBe(count);
  });
});

describe('rate limit: fixed 60 s windows per key', () => {
  test('the request over the limit waits until the window resets, at least 1 s', () => {
    const [account] = new AccountRegistry([{ key: 'k', balanceUsd: 1, rateLimitPerMinute: 2 }]).all();
    expect(admitRequest(account!, START + 10_000)).toBe(0);
    expect(admitRequest(account!, START + 10_000)).toBe(0);
    expect(admitRequest(account!, START + 10_000)).toBe(50);
    expect(admitRequest(account!, START + 59_900)).toBe(1);
    expect(admitRequest(account!, START + 60_000)).toBe(0);
  });

  test('no limit, no waiting', () => {
    const [account] = new AccountRegistry([{ key: 'k', balanceUsd: 1 }]).all();
    for (let i = 0; i < 1000; i++) expect(admitRequest(account!, START)).toBe(0);
  });

  test('a revoked or unknown key does not authenticate; names never carry the key', () => {
    const registry = new AccountRegistry([
      { key: 'a', balanceUsd: 1 },
      { key: 'b', balanceUsd: 1, revoked: true },
    ]);
    expect(registry.authenticate('Bearer a')?.name).toBe('acct-1');
    expect(registry.authenticate('Bearer b')).toBeUndefined();
    expect(registry.authenticate('Bearer c')).toBeUndefined();
    expect(registry.authenticate('a')).toBeUndefined();
    expect(registry.authenticate(undefined)).toBeUndefined();
  });
});

describe('deterministic text', () => {
  test('same input and seed, same words; max tokens cut the answer', () => {
    const input = chatInput([{ role: 'user', content: 'Hello there' }]);
    const first = complete(input, 1, 0);
    expect(complete(chatInput([{ role: 'user', content: 'Hello there' }]), 1, 0)).toEqual(first);
    expect(first.tokens).toBeGreaterThanOrEqual(8);
    expect(first.tokens).toBeLessThanOrEqual(32);
    expect(first.finishReason).toBe('stop');
    const cut = complete(input, 1, 0, 3);
    expect(cut).toMatchObject({ tokens: 3, finishReason: 'length' });
    expect(complete(input, 1, 0, 0)).toMatchObject({ tokens: 0, text: '' });
    expect(complete(chatInput([{ role: 'user', content: 'Hello there!' }]), 1, 0).text).not.toBe(first.text);
  });

  test('usage counts the text of every message, array parts included', () => {
    const input = chatInput([
      { role: 'system', content: 'abcd' },
      { role: 'user', content: [{ type: 'text', text: 'efgh' }, { type: 'image_url' }] },
    ]);
    expect(input.chars).toBe(8);
    expect(input.lastUserText).toBe('efgh');
  });
});

describe('fault rolls', () => {
  const base = { ...defaultFaults() };

  test('latency is the fixed part plus a share of the jitter', () => {
    const random = createRandom(5);
    expect(latencyOf({ ...base, latencyMs: 30 }, random)).toBe(30);
    for (let i = 0; i < 50; i++) {
      const ms = latencyOf({ ...base, latencyMs: 30, latencyJitterMs: 20 }, random);
      expect(ms).toBeGreaterThanOrEqual(30);
      expect(ms).toBeLessThan(50);
    }
  });

  test('per-endpoint error rates override the global one; flavors give their statuses', () => {
    const random = createRandom(5);
    const faults = { ...base, errorRate: 1, errorRates: { poll: 0 } };
    expect(rollInjectedError(faults, 'poll', random)).toBeUndefined();
    const envelope = new Set(Array.from({ length: 40 }, () => rollInjectedError(faults, 'chat', random)!.status));
    expect([...envelope].sort()).toEqual([500, 502, 503]);
    const proxy = { ...faults, errorFlavor: 'intermediary' as const };
    const statuses = new Set(Array.from({ length: 40 }, () => rollInjectedError(proxy, 'submit', random)!.status));
    expect([...statuses].sort()).toEqual([502, 504]);
  });

  test('only chat, responses and submit can be dropped', () => {
    const random = createRandom(5);
    const faults = { ...base, acceptThenDropRate: 1 };
    expect(
      ['chat', 'responses', 'submit', 'models', 'poll', 'content'].map((e) => rollDrop(faults, e as never, random)),
    ).toEqual([true, true, true, false, false, false]);
  });
});
