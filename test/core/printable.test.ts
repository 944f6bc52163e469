// Issue 10 item 6: terminal control characters from outside are printed as visible escapes.
import { describe, expect, it } from 'vitest';
import { printable, printableBlock } from '../../src/core/printable.js';

describe('printable', () => {
  it.each([
    ['ESC CSI (clear screen)', 'a\u001b[2Jb', 'a\\x1b[2Jb'],
    ['OSC title with BEL', '\u001b]0;title\u0007', '\\x1b]0;title\\x07'],
    ['CR, backspace, BEL', 'ok\rno\bbell\u0007', 'ok\\x0dno\\x08bell\\x07'],
    ['newline and tab in one line', 'a\nb\tc', 'a\\x0ab\\x09c'],
    ['NUL and DEL', '\u0000\u007f', '\\x00\\x7f'],
    ['C1 controls (8-bit CSI)', '\u0080\u009b2J\u009f', '\\x80\\x9b2J\\x9f'],
    ['bidi override and isolates', 'abc\u202edef\u2066\u2069', 'abc\\u202edef\\u2066\\u2069'],
    ['zero-width and marks', '\u200b\u200c\u200d\u200e\u200f\u061c', '\\u200b\\u200c\\u200d\\u200e\\u200f\\u061c'],
    ['line separators and BOM', '\u2028\u2029\ufeff', '\\u2028\\u2029\\ufeff'],
  ])('%s', (_name, input, expected) => {
    expect(printable(input)).toBe(expected);
  });

  it('leaves ordinary text, accents, emoji and backslashes as they are (and returns the same string)', () => {
    const text = 'Café déjà vu — 東京 🚀 C:\\path\\x1b U+FFFD \ufffd';
    expect(printable(text)).toBe(text);
  });

  it('is the same when applied twice (its output holds nothing to escape)', () => {
    const once = printable('\u001b[31mred\u202e');
    expect(printable(once)).toBe(once);
  });
});

describe('printableBlock', () => {
  it('keeps newlines and tabs, escapes the rest', () => {
    expect(printableBlock('line 1\n\tline 2\r\u001b[2J\u202e')).toBe('line 1\n\tline 2\\x0d\\x1b[2J\\u202e');
  });
});
