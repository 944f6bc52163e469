import { describe, expect, it } from 'vitest';
import { unwrittenChunks } from '../../src/io/callback-fs.js';

const chunks = () => [Buffer.from('abc'), Buffer.from('defg'), Buffer.from('hi')];
const text = (rest: Buffer[]) => Buffer.concat(rest).toString();

describe('unwrittenChunks (continuing a short gathered write)', () => {
  it('keeps everything after a write of nothing', () => {
    expect(text(unwrittenChunks(chunks(), 0))).toBe('abcdefghi');
  });

  it('drops whole chunks written and cuts into the first partly written one', () => {
    expect(text(unwrittenChunks(chunks(), 3))).toBe('defghi');
    expect(text(unwrittenChunks(chunks(), 5))).toBe('fghi');
    expect(unwrittenChunks(chunks(), 5)).toHaveLength(2);
  });

  it('leaves nothing once every byte is written', () => {
    expect(unwrittenChunks(chunks(), 9)).toEqual([]);
  });

  it('does not modify the caller’s array', () => {
    const original = chunks();
    unwrittenChunks(original, 4);
    expect(original.map(String)).toEqual(['abc', 'defg', 'hi']);
  });
});
