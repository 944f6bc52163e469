// The redactor catches the key in every form a body can carry it, and redactDeep reaches every string.
import { describe, expect, it } from 'vitest';
import { createRedactor, redactDeep, REDACTED } from '../../src/gateway/redact.js';

const KEY = 'sk-live/AB+cd=0123456789';
const redact = createRedactor([KEY]);

describe('createRedactor', () => {
  it.each([
    ['as is', KEY],
    ['URL-encoded', encodeURIComponent(KEY)],
    ['URL-encoded, lower-case hex', encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['JSON-escaped slash', KEY.replace('/', '\\/')],
    ['JSON \\u escapes', [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['mixed', `sk-live%2FAB\\u002bcd=0123456789`],
  ])('%s', (_name, form) => {
    expect(redact(`before ${form} after`)).toBe(`before ${REDACTED} after`);
  });

  it('a bearer token, ours or not; prose that says bearer stays', () => {
    expect(redact(`Authorization: Bearer ${KEY}`)).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('Authorization: Bearer sk-other-0123456789')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('the bearer bonds were sold')).toBe('the bearer bonds were sold');
  });

  it('leaves text without the key as it is', () => {
    expect(redact('sk-live/AB+cd=012345678 is a prefix')).toBe('sk-live/AB+cd=012345678 is a prefix');
  });
});

describe('redactDeep', () => {
  it('redacts strings at any depth and object keys, and returns the same value when nothing changed', () => {
    const body = { a: [1, { b: `x ${KEY}` }], [KEY]: { c: null, d: true }, e: 'clean' };
    const out = redactDeep(body, redact);
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(out).toEqual({ a: [1, { b: `x ${REDACTED}` }], [REDACTED]: { c: null, d: true }, e: 'clean' });
    expect(body.a[1]).toEqual({ b: `x ${KEY}` }); // the input is not changed
    const clean = { a: [1, { b: 'x' }], e: 'clean' };
    expect(redactDeep(clean, redact)).toBe(clean);
    expect(redactDeep({ __proto__: KEY } as unknown, redact)).toBeTypeOf('object');
  });
});
