// Failed sign-ins per address: refused past the limit until the window ends, said once, bounded in memory.
import { describe, expect, it } from 'vitest';
import { shortToken, SignInThrottle } from '../../src/core/sign-in-throttle.js';

describe('SignInThrottle', () => {
  const rule = { limit: 3, windowMs: 60_000, maxAddresses: 2 };

  it('lets an address fail up to the limit, then refuses it with the seconds left; each failure said with its count', () => {
    let now = 1_000;
    const throttle = new SignInThrottle(() => now, rule);
    expect([throttle.failed('10.0.0.1'), throttle.failed('10.0.0.1')]).toEqual([
      'failed sign-in from 10.0.0.1 (1 of 3 within 60 s)',
      'failed sign-in from 10.0.0.1 (2 of 3 within 60 s)',
    ]);
    expect(throttle.retryAfterS('10.0.0.1')).toBeUndefined();
    expect(throttle.failed('10.0.0.1')).toBe(
      'failed sign-in from 10.0.0.1 (3 of 3 within 60 s): refusing it until the window ends',
    );
    now += 15_500;
    expect(throttle.retryAfterS('10.0.0.1')).toBe(45);
    expect(throttle.retryAfterS('10.0.0.2')).toBeUndefined();
    now = 1_000 + 60_000;
    expect(throttle.retryAfterS('10.0.0.1')).toBeUndefined();
  });

  it('starts an address afresh once it signs in, and forgets the oldest address past the bound', () => {
    const throttle = new SignInThrottle(() => 0, rule);
    for (let i = 0; i < 3; i++) throttle.failed('a');
    throttle.succeeded('a');
    expect(throttle.retryAfterS('a')).toBeUndefined();
    for (let i = 0; i < 3; i++) throttle.failed('b');
    throttle.failed('c');
    throttle.failed('d');
    expect(throttle.retryAfterS('b')).toBeUndefined();
  });
});

describe('shortToken', () => {
  it('names the first token under 16 characters', () => {
    expect(shortToken(['a-long-enough-token', 'short'])).toBe('short');
    expect(shortToken(['sixteen-chars-ok'])).toBeUndefined();
  });
});
