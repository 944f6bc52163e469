// The chunked UTF-8 check: valid text passes however it is cut, invalid bytes are found where they are.
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { firstInvalidByte, invalidUtf8Reason, Utf8Checker, type InvalidByte } from '../../src/manifest/utf8-check.js';

function check(bytes: Buffer, cuts: number[]): InvalidByte[] {
  const checker = new Utf8Checker();
  const found: InvalidByte[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    found.push(...checker.feed(bytes.subarray(at, cut)));
    at = cut;
  }
  const last = checker.end();
  if (last) found.push(last);
  return found;
}

const VALID = Buffer.from('id,prompt\nr1,Café déjà vu\nr2,東京 🚀 \ufffd ok\nr3,ñ\n', 'utf8');

describe('Utf8Checker', () => {
  it('passes valid UTF-8 (a U+FFFD of the file included) cut at every byte', () => {
    for (let cut = 0; cut <= VALID.length; cut++) expect(check(VALID, [cut])).toEqual([]);
    expect(check(VALID, [...Array(VALID.length).keys()])).toEqual([]); // one byte a chunk
  });

  it('finds the Latin-1 bytes wherever the chunks are cut (the first of each line at least)', () => {
    const latin1 = Buffer.concat([
      Buffer.from('id,prompt\nr1,Caf'),
      Buffer.from([0xe9]),
      Buffer.from(' cr'),
      Buffer.from([0xe8]),
      Buffer.from('me\nr2,ok\nr3,'),
      Buffer.from([0xe9]),
    ]);
    const first = { offset: 16, byte: 0xe9 };
    // same line: reported only when a chunk starts between the two
    const second = { offset: latin1.indexOf(0xe8), byte: 0xe8 };
    const last = { offset: latin1.length - 1, byte: 0xe9 };
    const expectFound = (found: InvalidByte[], why: string): void => {
      const withoutSecond = found.filter((f) => f.offset !== second.offset);
      expect(withoutSecond, why).toEqual([first, last]);
      expect(found.length - withoutSecond.length, why).toBeLessThanOrEqual(1);
    };
    expect(check(latin1, [])).toEqual([first, last]);
    for (let cut = 0; cut <= latin1.length; cut++) expectFound(check(latin1, [cut]), `cut at ${cut}`);
    expectFound(check(latin1, [...Array(latin1.length).keys()]), 'one byte a chunk');
  });

  it('agrees with isUtf8 on odd sequences (overlong, surrogate, beyond U+10FFFF, stray continuation)', () => {
    for (const bytes of [
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0x80],
      [0xf8],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x9a, 0x80],
    ]) {
      const buf = Buffer.from([0x61, ...bytes, 0x62]);
      expect(firstInvalidByte(buf, 0, buf.length) === -1).toBe(isUtf8(buf));
      for (let cut = 0; cut <= buf.length; cut++) expect(check(buf, [cut]).length === 0).toBe(isUtf8(buf));
    }
  });
});

describe('invalidUtf8Reason', () => {
  it('names the byte and the likely encoding', () => {
    expect(invalidUtf8Reason({ offset: 40, byte: 0xe9 })).toBe(
      'not valid UTF-8 (byte 0xE9); save the file as UTF-8 — it looks like Latin-1/Windows-1252',
    );
    expect(invalidUtf8Reason({ offset: 0, byte: 0xff })).toMatch(/UTF-16 byte order mark/);
  });
});
